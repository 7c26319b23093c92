/* The prefaulter (see storage.h): a helper thread that makes the pages of
 * the tables' mapped column arrays resident just ahead of the rows being
 * appended, so the appending thread rarely takes a page fault.
 *
 * Requests are hints: a full ring drops them, and a request whose range was
 * moved or unmapped since (an array grown by mremap, or freed) only fails in
 * the kernel or makes a window of pages resident. MADV_POPULATE_WRITE never
 * changes what memory holds, so it is safe while the owner writes it. */
#include "storage/storage.h"

#include <pthread.h>
#include <sys/mman.h>

#define PREFAULT_RING 256 /* pending requests, a power of two */

typedef struct prefault_range {
  uintptr_t addr;
  size_t len;
} prefault_range;

struct storage_prefaulter {
  pthread_mutex_t mu;
  pthread_cond_t wake;
  prefault_range ring[PREFAULT_RING];
  uint64_t head, tail; /* requests made / taken */
  int stop;
  pthread_t thread;
};

static void *prefault_thread(void *arg) {
  storage_prefaulter *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->head == p->tail && !p->stop) pthread_cond_wait(&p->wake, &p->mu);
    if (p->stop) break;
    prefault_range r = p->ring[p->tail++ % PREFAULT_RING];
    pthread_mutex_unlock(&p->mu);
#ifdef MADV_POPULATE_WRITE
    (void)madvise((void *)r.addr, r.len, MADV_POPULATE_WRITE); /* a hint: errors are fine */
#else
    (void)r;
#endif
    pthread_mutex_lock(&p->mu);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

int storage_prefaulter_start(storage_prefaulter **out) {
  *out = NULL;
#ifndef MADV_POPULATE_WRITE
  return WEFT_OK; /* nothing to do it with: appends take their own faults */
#else
  storage_prefaulter *p = base_calloc(1, sizeof *p);
  if (!p) return WEFT_ENOMEM;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  if (pthread_create(&p->thread, NULL, prefault_thread, p) != 0) {
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    base_free(p);
    return WEFT_ENOMEM;
  }
  *out = p;
  return WEFT_OK;
#endif
}

void storage_prefaulter_stop(storage_prefaulter *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_signal(&p->wake);
  pthread_mutex_unlock(&p->mu);
  pthread_join(p->thread, NULL);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->mu);
  base_free(p);
}

void storage_prefaulter_request(storage_prefaulter *p, const void *const *addrs,
                                const size_t *lens, size_t n) {
  if (!p || !n) return;
  pthread_mutex_lock(&p->mu);
  for (size_t i = 0; i < n && p->head - p->tail < PREFAULT_RING; i++)
    if (lens[i]) p->ring[p->head++ % PREFAULT_RING] = (prefault_range){(uintptr_t)addrs[i], lens[i]};
  pthread_cond_signal(&p->wake);
  pthread_mutex_unlock(&p->mu);
}
