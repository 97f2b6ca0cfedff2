/*
 * The patch's probe (SliceExtProbe in slice_ext.c, taken verbatim into
 * "probe_under_test.h" by src/postgres/harness.ts) against a faked kernel
 * and glibc: what prctl(PR_RSEQ_SLICE_EXTENSION, ...) returns (and errno),
 * AT_RSEQ_FEATURE_SIZE, glibc's __rseq_size, and whether registering an rseq
 * area works.  Prints, per case, the status string the server would show and
 * whether the feature was enabled:
 *   CASE name|status|enabled
 * The seccomp cases install a real seccomp filter (in a child of this
 * program) that kills on, or returns EPERM for, rseq_slice_yield (system
 * call 471), and let the probe make that call for real.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

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

/* 0: rseq_slice_yield returns 0 (no grant); 1: make the real system call */
static int	f_yield_real;

static long
fake_syscall(long nr, ...)
{
	if (nr == 471)
	{
		if (f_yield_real)
			return syscall(471);	/* the real one: this is before the #define */
		return 0;
	}
	errno = f_reg_ret ? EINVAL : 0;
	return f_reg_ret;
}

/* A seccomp filter: ACTION for system call 471, allow everything else. */
static void
install_filter(unsigned int action)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 471, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
	{
		perror("seccomp");
		exit(3);
	}
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
	H_PROBE_CTRL = NULL;
	PROBE();
	printf("CASE %s|%s|%d\n", name, status, supported_mask == SLICE_EXT_ALL);
	fflush(stdout);
}

/* The own-area case under a seccomp filter with ACTION for 471, in a child. */
static void
filtered(const char *name, unsigned int action)
{
	pid_t		pid;
	int			st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
	{
		install_filter(action);
		f_yield_real = 1;
		one(name, 0, 0, 33, 0, 0, 0, 0);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		printf("CASE %s|SKIP: this host cannot install a seccomp filter|0\n", name);
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		printf("CASE %s|the harness child died (status 0x%x): the probe made the call in the process itself|0\n", name, st);
}

/* glibc registered an area of 33 bytes or more: the probe uses it where __rseq_offset says */
static uint8 fake_glibc_area[64] __attribute__((aligned(64)));

static void
glibc_area(void)
{
	uint8	   *tp;

	__asm__("mov %%fs:0, %0" : "=r"(tp));
	__rseq_offset = (ptrdiff_t) (fake_glibc_area - tp);
	one("glibc-area-33", 0, 0, 33, 33, 0, 0, 0);
	if (H_PROBE_CTRL != fake_glibc_area + 28)
		printf("CASE glibc-area-ctrl|the control word is not __rseq_offset + 28 from the thread pointer|0\n");
	else
		printf("CASE glibc-area-ctrl|the control word at the glibc area + 28|1\n");
	__rseq_offset = 0;
}

int
main(void)
{
	one("linux-6.x", -1, EINVAL, 0, 0, 0, 0, 0);
	one("linux-7.x-without-option", -1, 524, 33, 0, 0, 0, 0);
	one("glibc-short-registration", 0, 0, 33, 32, 0, -1, 524);
	one("own-area-set-enotsupp", 0, 0, 33, 0, 0, -1, 524);
	one("own-area-enabled", 0, 0, 33, 0, 0, 0, 0);
	glibc_area();
	/* slice_extension = count: all's bookkeeping on a private word; all again: the kernel's word */
	{
		int			ok = 0;
#ifdef SLICE_EXT_COUNT_ALL
		volatile uint8 *kctrl;

		one("count-level-probe", 0, 0, 33, 0, 0, 0, 0);
		kctrl = H_PROBE_CTRL;
		assign_slice_extension(SLICE_EXT_COUNT_ALL, NULL);
		ok = SliceExt.mask == SLICE_EXT_ALL && H_PROBE_CTRL != NULL && H_PROBE_CTRL != kctrl;
		assign_slice_extension(SLICE_EXT_ALL, NULL);
		ok = ok && H_PROBE_CTRL == kctrl && SliceExt.mask == SLICE_EXT_ALL;
#endif
		printf("CASE count-level|%s|%d\n", ok ? "count: mask all, private word; all: the kernel's word" : "no count level", ok);
	}
	filtered("seccomp-kill-471", SECCOMP_RET_KILL_PROCESS);
	filtered("seccomp-eperm-471", SECCOMP_RET_ERRNO | EPERM);
	return 0;
}
