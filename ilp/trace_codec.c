/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib's crc32():
 * the check value of "123456789" is 0xCBF43926. */
#include "ilp/trace_codec.h"

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[n] = c;
	}
}

uint32_t trace_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	if (!crc_table[1])
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
