/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib's crc32():
 * the check value of "123456789" is 0xCBF43926. Slicing by 8 (eight
 * tables, 8 bytes per step) keeps it well under the replay's cost. */
#include <string.h>

#include "ilp/trace_codec.h"

static uint32_t crc_table[8][256];

static void crc_init(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][n] = c;
	}
	for (uint32_t n = 0; n < 256; n++)
		for (int t = 1; t < 8; t++)
			crc_table[t][n] =
			    crc_table[0][crc_table[t - 1][n] & 0xff] ^ (crc_table[t - 1][n] >> 8);
}

uint32_t trace_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	if (!crc_table[0][1])
		crc_init();
	crc = ~crc;
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo = trace_get_u32(p) ^ crc, hi = trace_get_u32(p + 4);
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
