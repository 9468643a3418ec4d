/*
 * "Did you mean": the name nearest to a misspelt one, for the usage errors
 * of ttsim and ttd.  Private to the project's programs (not installed).
 */
#ifndef TWINTORUS_SUGGEST_H
#define TWINTORUS_SUGGEST_H

#include <stddef.h>

/*
 * The edit distance between a and b: insertions, deletions, substitutions
 * and transpositions of two neighbours, each 1 (the optimal string
 * alignment form of Damerau-Levenshtein).  Strings longer than 63 bytes
 * count as far from everything (a large number).
 */
int tt_edit_distance(const char *a, const char *b);
/*
 * Of the n names, the one word most likely meant, or NULL: the only name
 * that word (3 bytes or more) begins, else the only name nearest to it
 * within 1 edit (word of up to 5 bytes) or 2 (longer); none for a word of
 * 2 bytes or less, or when two names are as near.
 */
const char *tt_suggest(const char *word, const char *const *names, size_t n);

#endif
