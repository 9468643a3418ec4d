/*
 * "Did you mean" (suggest.h): an edit distance and the nearest name.
 */
#include <string.h>

#include "support/suggest.h"

#define SUGGEST_MAX 64          /* bytes of a word or a name, with the NUL */
#define FAR 1000

static int
min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int
tt_edit_distance(const char *a, const char *b)
{
	int d[SUGGEST_MAX][SUGGEST_MAX];
	size_t la = strlen(a), lb = strlen(b), i, j;
	int cost;

	if (la >= SUGGEST_MAX || lb >= SUGGEST_MAX)
		return FAR;
	for (i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			cost = a[i - 1] != b[j - 1];
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
			    d[i - 1][j - 1] + cost);
			/* two neighbours swapped */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[la][lb];
}

const char *
tt_suggest(const char *word, const char *const *names, size_t n)
{
	size_t w = strlen(word), i;
	const char *prefixed = NULL, *best = NULL;
	int nprefixed = 0, bestd = FAR, ties = 0, d, most;

	if (w <= 2 || w >= SUGGEST_MAX)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(names[i], word, w) == 0 && names[i][w] != '\0') {
			prefixed = names[i];
			nprefixed++;
		}
	if (nprefixed == 1)
		return prefixed;
	most = w <= 5 ? 1 : 2;
	for (i = 0; i < n; i++) {
		d = tt_edit_distance(word, names[i]);
		if (d == 0 || d > most)
			continue;
		if (d < bestd) {
			bestd = d;
			best = names[i];
			ties = 0;
		} else if (d == bestd && strcmp(names[i], best) != 0) {
			ties++;
		}
	}
	return ties == 0 ? best : NULL;
}
