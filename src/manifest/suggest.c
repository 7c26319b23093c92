/* Names close to a misspelt one: for "did you mean" messages. See plan.h. */
#include <string.h>

#include "manifest/plan.h"

#define SUGGEST_MAX_LEN 256 /* longer names are not compared */

/* Levenshtein distance of a and b (both at most SUGGEST_MAX_LEN bytes). */
static size_t suggest_distance(const char *a, size_t la, const char *b, size_t lb) {
  size_t row[SUGGEST_MAX_LEN + 1];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t above = row[j];
      size_t best = diagonal + (a[i - 1] != b[j - 1]);
      if (above + 1 < best) best = above + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diagonal = above;
    }
  }
  return row[lb];
}

int plan_closest_name(const char *name, const char *const *names, size_t n) {
  size_t len = strlen(name);
  if (len > SUGGEST_MAX_LEN) return -1;
  size_t limit = len / 4 > 1 ? len / 4 : 1, best = limit + 1;
  int found = -1;
  for (size_t i = 0; i < n; i++) {
    size_t other = names[i] ? strlen(names[i]) : SUGGEST_MAX_LEN + 1;
    if (other > SUGGEST_MAX_LEN) continue;
    size_t d = suggest_distance(name, len, names[i], other);
    if (d < best) {
      best = d;
      found = (int)i;
    }
  }
  return found;
}
