/*
 * The patch's probe (SliceExtProbe in slice_ext.c, taken verbatim into
 * "probe_under_test.h" by src/postgres/harness.ts) against a faked kernel
 * and glibc: what prctl(PR_RSEQ_SLICE_EXTENSION, ...) returns (and errno),
 * AT_RSEQ_FEATURE_SIZE, glibc's __rseq_size, and whether registering an rseq
 * area works.  Prints, per case, the status string the server would show and
 * whether the feature was enabled:
 *   CASE name|status|enabled
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint8_t uint8;
typedef uint32_t uint32;
typedef uint64_t uint64;
typedef int64_t int64;
typedef size_t Size;
#define PGDLLIMPORT
#define likely(x) __builtin_expect((x) != 0, 1)
#define unlikely(x) __builtin_expect((x) != 0, 0)
#define pg_attribute_aligned(a) __attribute__((aligned(a)))
#define LOG 15
#define DEBUG1 14
#define RSEQ_SIG 0x53053053
#define __NR_rseq 334

static int	logged;
#define ereport(elevel, rest) (logged++)
#define errmsg(...) 0

static long f_get_ret, f_set_ret;
static int	f_get_errno, f_set_errno, f_reg_ret;
static unsigned long f_feature_size, f_align;
unsigned int __rseq_size;
ptrdiff_t	__rseq_offset;

static int
fake_prctl(int option, unsigned long a2, ...)
{
	(void) option;
	if (a2 == 1)
	{
		errno = f_get_errno;
		return f_get_ret;
	}
	errno = f_set_errno;
	return f_set_ret;
}

static unsigned long
fake_getauxval(unsigned long t)
{
	return t == 27 ? f_feature_size : t == 28 ? f_align : 0;
}

static long
fake_syscall(long nr, ...)
{
	(void) nr;
	errno = f_reg_ret ? EINVAL : 0;
	return f_reg_ret;
}

#define prctl fake_prctl
#define getauxval fake_getauxval
#define syscall fake_syscall

#include "probe_under_test.h"

static void
one(const char *name, long get_ret, int get_errno, unsigned long fsize, unsigned int rseq_size, int reg_ret, long set_ret, int set_errno)
{
	f_get_ret = get_ret;
	f_get_errno = get_errno;
	f_feature_size = fsize;
	f_align = 32;
	__rseq_size = rseq_size;
	f_reg_ret = reg_ret;
	f_set_ret = set_ret;
	f_set_errno = set_errno;
	probed = false;
	supported_mask = 0;
	logged = 0;
	PROBE();
	printf("CASE %s|%s|%d\n", name, status, supported_mask == SLICE_EXT_ALL);
}

int
main(void)
{
	one("linux-6.x", -1, EINVAL, 0, 0, 0, 0, 0);
	one("linux-7.x-without-option", -1, 524, 33, 0, 0, 0, 0);
	one("glibc-short-registration", 0, 0, 33, 32, 0, -1, 524);
	one("own-area-set-enotsupp", 0, 0, 33, 0, 0, -1, 524);
	one("own-area-enabled", 0, 0, 33, 0, 0, 0, 0);
	return 0;
}
