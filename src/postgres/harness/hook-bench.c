/*
 * Cost of the patch's hooks per lock operation, on the host: the same glue
 * and hook code as slice-ext-hooks.c (under_test.h, from the patched
 * source), around a real uncontended test-and-set lock.  Built twice: with
 * the hooks (modes "off": switch off, "all": the full request protocol on a
 * fake rseq area that no kernel touches, counters included), and with the
 * glue emptied ("none": no hook code, as unpatched).
 *
 * usage: hook-bench MODE PATTERN ITERATIONS
 *   MODE     none | off | all (none only in the build without hooks)
 *   PATTERN  spin    SpinLockAcquire/Release: 2 hook executions
 *            nested  LWLockAcquire, SpinLockAcquire, LockBufHdr, UnlockBufHdr,
 *                    SpinLockRelease, LWLockAcquire, LWLockRelease x2:
 *                    8 hook executions (2 of them nested acquires)
 *            clear   LWLockAcquire, the kernel clears the word (a switch),
 *                    SpinLockAcquire (re-arms: one clear observed),
 *                    SpinLockRelease, LWLockRelease: 4 hook executions
 *   SYSCALLS (optional, pattern clear): fake (rseq_slice_yield returns 0
 *            without entering the kernel) or real (the real system call 471:
 *            v3's yield after a clear costs the difference)
 * prints: mode pattern iterations ns_per_iteration hook_executions_per_iteration
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef uint8_t uint8;
typedef uint32_t uint32;
typedef uint64_t uint64;
typedef int64_t int64;
typedef size_t Size;
#define PGDLLIMPORT
#define likely(x) __builtin_expect((x) != 0, 1)
#define unlikely(x) __builtin_expect((x) != 0, 0)

static uint8 rseq_area[64] __attribute__((aligned(64)));

#define __NR_rseq_slice_yield 471
static int	real_syscalls;
static long real_calls;

static long
fake_syscall(long nr, ...)
{
	if (real_syscalls)
	{
		real_calls++;
		(void) syscall(nr);		/* the libc function: the #define comes after */
	}
	return 0;
}
#define syscall fake_syscall
#define HAVE_SLICE_EXT 1

static int	num_held_lwlocks;
static int	h_waiters;			/* LWLockRelease never finds waiters here */
#define Assert(x) ((void) 0)

#include "under_test.h"

static volatile int lock_word[4] __attribute__((aligned(64)));

static inline void
tas(volatile int *l)
{
	while (__sync_lock_test_and_set(l, 1))
		;
}

static inline void
untas(volatile int *l)
{
	__sync_lock_release(l);
}

static void __attribute__((noinline))
pattern_spin(void)
{
	tas(&lock_word[0]);
	pg_SpinLockAcquire();
	untas(&lock_word[0]);
	pg_SpinLockRelease();
}

static void __attribute__((noinline))
pattern_nested(void)
{
	tas(&lock_word[1]);
	pg_LWLockAcquire();
	tas(&lock_word[0]);
	pg_SpinLockAcquire();
	tas(&lock_word[2]);
	pg_LockBufHdr();
	untas(&lock_word[2]);
	pg_UnlockBufHdr();
	untas(&lock_word[0]);
	pg_SpinLockRelease();
	tas(&lock_word[3]);
	pg_LWLockAcquire();
	untas(&lock_word[3]);
	pg_LWLockRelease();
	untas(&lock_word[1]);
	pg_LWLockRelease();
}

static void __attribute__((noinline))
pattern_clear(void)
{
	tas(&lock_word[1]);
	pg_LWLockAcquire();
	memset(rseq_area + 28, 0, 4);	/* the kernel cleared the word: a switch */
	__asm__ __volatile__("" : : : "memory");
	tas(&lock_word[0]);
	pg_SpinLockAcquire();
	untas(&lock_word[0]);
	pg_SpinLockRelease();
	untas(&lock_word[1]);
	pg_LWLockRelease();
}

static void
one_iteration(int which)
{
	if (which == 1)
		pattern_nested();
	else if (which == 2)
		pattern_clear();
	else
		pattern_spin();
}

int
main(int argc, char **argv)
{
	struct timespec t0,
				t1;
	long		n,
				i;
	int			which;
	double		ns;

	if (argc != 4 && argc != 5)
	{
		fprintf(stderr, "usage: hook-bench none|off|all spin|nested|clear ITERATIONS [fake|real]\n");
		return 2;
	}
	which = strcmp(argv[2], "nested") == 0 ? 1 : strcmp(argv[2], "clear") == 0 ? 2 : 0;
	n = atol(argv[3]);
	real_syscalls = argc == 5 && strcmp(argv[4], "real") == 0;
	H_RESET_STATE();
	H_CTRL = (volatile uint8 *) (rseq_area + 28);
	SliceExt.mask = strcmp(argv[1], "all") == 0 ? SLICE_EXT_ALL : SLICE_EXT_OFF;
	/* warm up */
	for (i = 0; i < n / 10; i++)
		one_iteration(which);
	real_calls = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		one_iteration(which);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double) n;
	if (SliceExt.depth != 0 || rseq_area[28] != 0)
	{
		fprintf(stderr, "hook-bench: unbalanced after the run (depth %d, request %d)\n", SliceExt.depth, rseq_area[28]);
		return 1;
	}
	if (argc == 5)
	{
		/* mode pattern iterations ns hooks syscalls-mode real-calls-per-iteration */
		printf("%s %s %ld %.4f %d %s %.4f\n", argv[1], argv[2], n, ns, which == 1 ? 8 : which == 2 ? 4 : 2, argv[4], (double) real_calls / n);
		return 0;
	}
	printf("%s %s %ld %.4f %d\n", argv[1], argv[2], n, ns, which == 1 ? 8 : which == 2 ? 4 : 2);
	return 0;
}
