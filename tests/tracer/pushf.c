/* Exits 1 if pushf showed the trap flag (see tf_seen.S). */
int tf_seen(void);

int main(void)
{
	return tf_seen();
}
