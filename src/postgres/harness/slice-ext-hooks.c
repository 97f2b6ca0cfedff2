/*
 * The PostgreSQL patch's time-slice-extension hooks, compiled against a fake
 * rseq area, driven through scenarios of what the Linux 7.2 kernel does to
 * slice_ctrl (include/linux/rseq_entry.h, kernel/rseq.c):
 *
 *   k_switch()   the task went through schedule() and returns to user space:
 *                rseq_exit_user_update() / rseq_set_ids_get_csaddr() store 0
 *                in the whole word (rseq_slice_clear_user()), a grant ends;
 *   k_grant()    an interrupt with a reschedule pending and request set:
 *                __rseq_grant_slice_extension() stores request 0, granted 1;
 *   k_deny()     the same with other work pending (or a grant still active):
 *                __rseq_grant_slice_extension() stores 0;
 *   k_syscall()  any system call inside a grant: rseq_syscall_enter_work()
 *                stores 0 and ends the grant;
 *   rseq_slice_yield(2) (the hooks' syscall(), redirected here) does that
 *                and returns 1 when a grant was active.
 * The syscall work bit (SYSCALL_RSEQ_SLICE): k_grant() sets it (the grant's
 * timer is armed on the way out); a switch or a denial that revokes the grant
 * clears the word and the kernel's "granted" but keeps the bit; only the next
 * system call entry clears it (rseq_syscall_enter_work()).  With rseq
 * debugging on (k_debug, on in every scenario) that entry first validates
 * the word against the kernel's granted state alone, before it returns for
 * "not granted": a word with "request" set there kills the task (SIGSEGV).
 * k_sleep() is a voluntary sleep that does not change CPU or mm_cid: a
 * system call, after which the kernel leaves the word as it was.  k_signal()
 * delivers a signal during a hold: the return to user space rewrites the
 * rseq area (the word is cleared), and the handler may make system calls.
 * After every hook call the driver checks what a kernel with rseq debugging
 * would check at the next system call (rseq_slice_validate_ctrl): while the
 * kernel holds a grant, nothing but "granted" may be set in the word.
 *
 * The code under test comes in "under_test.h", written by
 * src/postgres/harness.ts from a patch series: slice_ext.h verbatim, the
 * out-of-line functions from slice_ext.c verbatim, and one glue function per
 * patched PostgreSQL entry point (SpinLockAcquire, LockBufHdr, LWLockRelease,
 * ...) holding the hook calls the patched source makes there, in order.
 *
 * Output: one line per scenario, "PASS name", "FAIL name -- why" or
 * "SKIP name -- why", then "summary passed=N failed=N skipped=N".
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

typedef uint8_t uint8;
typedef uint32_t uint32;
typedef uint64_t uint64;
typedef int64_t int64;
typedef size_t Size;
#define PGDLLIMPORT
#define likely(x) __builtin_expect((x) != 0, 1)
#define unlikely(x) __builtin_expect((x) != 0, 0)

/* ---- the fake kernel ---------------------------------------------------- */

static uint8 rseq_area[64] __attribute__((aligned(64)));
#define KCTRL ((volatile uint8 *) (rseq_area + 28))
static int	k_granted;			/* the kernel's state.granted */
static int	k_work;				/* SYSCALL_RSEQ_SLICE syscall work */
static int	k_debug = 1;		/* rseq debugging (debugfs rseq/debug) */
static int	k_killed;			/* rseq_slice_validate_ctrl() raised SIGSEGV */
static int	h_waiters;			/* LWLockRelease finds waiters to wake */
static int	asserts_failed;
#define Assert(x) do { if (!(x)) asserts_failed++; } while (0)
static int yield_calls;
static int yield_returned_1;
static int violations;
static char violation_what[160];

static void
k_switch(void)
{
	memset((void *) KCTRL, 0, 4);
	k_granted = 0;
}

static void
k_grant(void)
{
	if (KCTRL[0] && !k_granted)
	{
		KCTRL[0] = 0;
		KCTRL[1] = 1;
		k_granted = 1;
		k_work = 1;				/* __rseq_arm_slice_extension_timer() */
	}
}

static void
k_deny(void)
{
	if (KCTRL[0] || k_granted)
	{
		memset((void *) KCTRL, 0, 4);
		k_granted = 0;
	}
}

/* the entry of system call NR: rseq_syscall_enter_work() when the work bit is set; 1 if a grant ended in a yield */
static int
k_syscall_nr(long nr)
{
	uint32		word,
				expected;

	if (!k_work)
		return 0;
	k_work = 0;
	memcpy(&word, (const void *) KCTRL, 4);
	expected = k_granted ? (1u << 8) : 0;	/* ctrl built from "granted" alone */
	if (k_debug && word != expected)
		k_killed++;
	if (!k_granted)
		return 0;
	k_granted = 0;
	memset((void *) KCTRL, 0, 4);
	return nr == 471;
}

static void
k_syscall(void)
{
	(void) k_syscall_nr(0);
}

/* a voluntary sleep on the same CPU and mm_cid: a system call, the word is kept */
static void
k_sleep(void)
{
	k_syscall();
}

/* a signal delivered during a hold, whose handler makes a system call (SetLatch) */
static void
k_signal(void)
{
	k_switch();
	k_syscall();
}

/* a grant the kernel revoked while user space still sees "granted" */
static void
k_forget_grant(void)
{
	k_granted = 0;
}

#define __NR_rseq_slice_yield 471
static long
fake_syscall(long nr, ...)
{
	long		r = 0;

	if (nr != __NR_rseq_slice_yield)
		return -1;
	yield_calls++;
	if (!k_work && k_granted)
	{
		/* a grant without armed work: still ends here */
		memset((void *) KCTRL, 0, 4);
		k_granted = 0;
		r = 1;
	}
	else
		r = k_syscall_nr(nr);
	if (r == 1)
		yield_returned_1++;
	return r;
}
#define syscall fake_syscall
#define HAVE_SLICE_EXT 1

static int	num_held_lwlocks;

#include "under_test.h"

/* ---- checks --------------------------------------------------------------- */

static void
check_word(const char *where)
{
	if (k_granted && KCTRL[0] != 0 && violations++ == 0)
		snprintf(violation_what, sizeof(violation_what),
				 "%s wrote request while the kernel held a grant (debug kernels raise SIGSEGV)", where);
}

/* every entry point through the glue, then the check */
#define CALL(fn) do { fn(); check_word(#fn); } while (0)
#define SPIN_ACQ()	CALL(pg_SpinLockAcquire)
#define SPIN_REL()	CALL(pg_SpinLockRelease)
#define BUF_ACQ()	CALL(pg_LockBufHdr)
#define BUF_REL()	CALL(pg_UnlockBufHdr)
#define WL_ACQ()	CALL(pg_LWLockWaitListLock)
#define WL_REL()	CALL(pg_LWLockWaitListUnlock)
#define WAKEUP()	CALL(pg_LWLockWakeup)
#define LW_ACQ()	CALL(pg_LWLockAcquire)
#define LW_REL()	CALL(pg_LWLockRelease)
#define LW_DISOWN() CALL(pg_LWLockDisown)
#define LW_COND()	CALL(pg_LWLockConditionalAcquire)
#define LW_ORWAIT() CALL(pg_LWLockAcquireOrWait)
#define LW_REL_DISOWNED() CALL(pg_LWLockReleaseDisowned)
#define LW_REL_ALL() CALL(pg_LWLockReleaseAll)

static char why[256];
static int	failed_here;

#define EXPECT(cond, ...) do { \
	if (!failed_here && !(cond)) { failed_here = 1; snprintf(why, sizeof(why), __VA_ARGS__); } \
} while (0)

/* the request is outstanding: set by us, or turned into a grant */
#define ARMED() (KCTRL[0] == 1 || KCTRL[1] == 1)

static void
reset_all(int mask)
{
	memset(rseq_area, 0, sizeof(rseq_area));
	k_granted = 0;
	k_work = 0;
	k_debug = 1;
	k_killed = 0;
	h_waiters = 0;
	asserts_failed = 0;
	yield_calls = yield_returned_1 = 0;
	violations = 0;
	violation_what[0] = 0;
	num_held_lwlocks = 0;
	H_RESET_STATE();
	SliceExt.mask = mask;
	H_CTRL = KCTRL;
	failed_here = 0;
	why[0] = 0;
}

static int	npass,
			nfail,
			nskip;

static void
finish(const char *name)
{
	if (!failed_here && violations)
	{
		failed_here = 1;
		snprintf(why, sizeof(why), "%s", violation_what);
	}
	if (!failed_here && k_killed)
	{
		failed_here = 1;
		snprintf(why, sizeof(why), "killed by SIGSEGV at a system call: the word held a request where the debug kernel expected 0 (stale syscall work after a revoked grant)");
	}
	if (!failed_here && (SliceExt.depth != 0 || KCTRL[0] != 0))
	{
		failed_here = 1;
		snprintf(why, sizeof(why), "after every lock was released: depth %d, request %d (expected 0, 0)",
				 SliceExt.depth, KCTRL[0]);
	}
	if (failed_here)
	{
		nfail++;
		printf("FAIL %s -- %s\n", name, why);
	}
	else
	{
		npass++;
		printf("PASS %s\n", name);
	}
}

static void
skip(const char *name, const char *reason)
{
	nskip++;
	printf("SKIP %s -- %s\n", name, reason);
}

#define NEED_COUNTERS(name) do { if (!H_HAS_COUNTERS) { EXPECT(0, "the patch keeps no %s counter", name); } } while (0)

/* ---- scenarios ------------------------------------------------------------ */

static void
s_spin_simple(void)
{
	reset_all(SLICE_EXT_ALL);
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 1, "no request while a spinlock is held");
	SPIN_REL();
	EXPECT(yield_calls == 0, "yield without a grant");
	finish("spinlock: request set while held, cleared at release");
}

static void
s_spin_grant_yield(void)
{
	reset_all(SLICE_EXT_ALL);
	SPIN_ACQ();
	k_grant();
	SPIN_REL();
	EXPECT(yield_calls == 1 && yield_returned_1 == 1, "granted hold released with %d yield(s)", yield_calls);
	finish("spinlock: a grant is given back with rseq_slice_yield at release");
}

static void
s_nested_spin_after_switch(void)
{
	reset_all(SLICE_EXT_ALL);
	SPIN_ACQ();
	k_switch();
	SPIN_ACQ();
	EXPECT(ARMED(), "a spinlock taken inside a hold after a switch left the hold without a request");
	SPIN_REL();
	SPIN_REL();
	finish("nested spinlock after a switch re-arms the request");
}

static void
s_lw_spin_after_switch(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_switch();
	SPIN_ACQ();
	EXPECT(ARMED(), "spinlock inside an LWLock hold after a sleep: no request");
	SPIN_REL();
	LW_REL();
	finish("spinlock inside an LWLock hold after a sleep re-arms");
}

static void
s_lw_lw_after_switch(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_switch();
	LW_ACQ();
	EXPECT(ARMED(), "second LWLock after a sleep: no request");
	LW_REL();
	LW_REL();
	finish("second LWLock after a sleep re-arms");
}

static void
s_lw_after_denial(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_deny();
	LW_ACQ();
	EXPECT(ARMED(), "request denied by the kernel and not re-armed at the next acquire");
	LW_REL();
	LW_REL();
	finish("acquire after a denied request re-arms");
}

static void
s_no_write_while_granted(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	SPIN_ACQ();
	LW_ACQ();
	EXPECT(KCTRL[0] == 0 && KCTRL[1] == 1, "word changed during a grant: request %d granted %d", KCTRL[0], KCTRL[1]);
	LW_REL();
	SPIN_REL();
	LW_REL();
	EXPECT(yield_calls == 1, "%d yields at the end of a granted hold", yield_calls);
	finish("acquires inside a grant leave the word alone; the end yields");
}

static void
s_grant_switch_nested(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	k_switch();					/* the grant expired, the task was switched out */
	LW_ACQ();
	EXPECT(ARMED(), "acquire after an expired grant: no request");
	LW_REL();
	LW_REL();
	finish("acquire after an expired grant re-arms");
}

static void
s_rearm_then_grant_yield(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_switch();
	SPIN_ACQ();
	k_grant();
	SPIN_REL();
	LW_REL();
	/* v3 also yields once at the re-arm, with the word at zero (counted in clear_yields) */
	EXPECT(yield_returned_1 == 1 && yield_calls == 1 + (H_CLEAR_YIELDS() > 0 ? H_CLEAR_YIELDS() : 0),
		   "a grant after the re-arm not given back (%d yields, %d returned 1)", yield_calls, yield_returned_1);
	finish("a re-armed request can be granted and is yielded");
}

static void
s_grant_syscall_nested(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	k_syscall();				/* I/O under the LWLock ends the grant */
	BUF_ACQ();
	EXPECT(ARMED(), "after a system call ended the grant, the next acquire did not re-arm");
	BUF_REL();
	LW_REL();
	finish("acquire after a system call ended a grant re-arms");
}

static void
s_loop_switches(void)
{
	int			i,
				armed = 0;

	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	for (i = 0; i < 10; i++)
	{
		k_switch();
		SPIN_ACQ();
		armed += ARMED();
		SPIN_REL();
	}
	LW_REL();
	EXPECT(armed == 10, "%d of 10 spinlocks after a switch ran with a request", armed);
	finish("ten switches inside one LWLock hold: every spinlock re-arms");
}

static void
s_bufhdr_armed(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	BUF_ACQ();
	EXPECT(KCTRL[0] == 1, "LockBufHdr holds the BM_LOCKED spinlock without a request");
	BUF_REL();
	finish("LockBufHdr (BM_LOCKED) is covered");
}

static void
s_bufhdr_in_lw_after_switch(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_switch();
	BUF_ACQ();
	EXPECT(ARMED(), "LockBufHdr under an LWLock after a sleep: no request");
	BUF_REL();
	LW_REL();
	finish("LockBufHdr inside an LWLock hold after a sleep re-arms");
}

static void
s_waitlist_armed(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	WL_ACQ();
	EXPECT(KCTRL[0] == 1, "LWLockWaitListLock holds LW_FLAG_LOCKED without a request");
	WL_REL();
	finish("LWLockWaitListLock (LW_FLAG_LOCKED) is covered");
}

static void
s_waitlist_wakeup(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	WAKEUP();
	EXPECT(SliceExt.depth == 0, "LWLockWakeup left depth %d", SliceExt.depth);
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 1, "spinlock after LWLockWakeup: no request");
	SPIN_REL();
	finish("LWLockWakeup takes the wait list lock and releases it with its flags: balanced");
}

static void
s_disown_ends_hold(void)
{
	if (!HAVE_pg_LWLockDisown)
	{
		skip("LWLockDisown of the last LWLock ends the hold", "this PostgreSQL version has no LWLockDisown");
		return;
	}
	reset_all(SLICE_EXT_LWLOCK);
	LW_ACQ();
	LW_DISOWN();
	EXPECT(KCTRL[0] == 0, "the last LWLock disowned, request still set");
	EXPECT(SliceExt.depth == 0, "the last LWLock disowned, depth %d", SliceExt.depth);
	finish("LWLockDisown of the last LWLock ends the hold");
}

static void
s_disown_then_spin(void)
{
	if (!HAVE_pg_LWLockDisown)
	{
		skip("after LWLockDisown a spinlock hold is its own", "this PostgreSQL version has no LWLockDisown");
		return;
	}
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	LW_DISOWN();
	SPIN_ACQ();
	SPIN_REL();
	EXPECT(KCTRL[0] == 0, "a spinlock released after LWLockDisown left the request set");
	finish("after LWLockDisown a spinlock hold is its own");
	/* the lock is released later by whoever owns it now */
	num_held_lwlocks = 0;
}

static void
s_mode_spinlock(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	LW_ACQ();
	EXPECT(KCTRL[0] == 0, "slice_extension = spinlock asked for an extension around an LWLock");
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 1, "slice_extension = spinlock: no request for a spinlock");
	SPIN_REL();
	LW_REL();
	finish("slice_extension = spinlock covers spinlocks only");
}

static void
s_mode_lwlock(void)
{
	reset_all(SLICE_EXT_LWLOCK);
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 0, "slice_extension = lwlock asked for an extension around a spinlock");
	SPIN_REL();
	LW_ACQ();
	EXPECT(KCTRL[0] == 1, "slice_extension = lwlock: no request for an LWLock");
	LW_REL();
	finish("slice_extension = lwlock covers LWLocks only");
}

static void
s_mask_change_while_held(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	SliceExt.mask = SLICE_EXT_OFF;	/* SET slice_extension = off mid-hold */
	LW_REL();
	EXPECT(SliceExt.depth == 0, "depth %d after the setting changed under an LWLock", SliceExt.depth);
	finish("a change of the setting while an LWLock is held stays balanced");
}

static void
s_counts_rearm(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("re-armed");
	LW_ACQ();
	k_switch();
	LW_ACQ();
	LW_REL();
	LW_REL();
	EXPECT(H_REARMED() == 1, "re-armed %lld, expected 1", (long long) H_REARMED());
	EXPECT(H_DROPPED() == 1, "dropped %lld, expected 1", (long long) H_DROPPED());
	finish("counts: a drop seen at a nested acquire is one drop and one re-arm");
}

static void
s_counts_yield(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("granted-then-yielded");
	SPIN_ACQ();
	k_grant();
	SPIN_REL();
	EXPECT(H_YIELDED() == 1 && H_EXPIRED() == 0 && H_DROPPED() == 0,
		   "yielded %lld expired %lld dropped %lld, expected 1 0 0",
		   (long long) H_YIELDED(), (long long) H_EXPIRED(), (long long) H_DROPPED());
	finish("counts: granted then yielded");
}

static void
s_counts_expired(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("granted-then-expired");
	LW_ACQ();
	k_grant();
	SPIN_ACQ();					/* sees the grant */
	SPIN_REL();
	k_switch();					/* the grant expired */
	LW_REL();
	EXPECT(H_EXPIRED() == 1 && H_DROPPED() == 0 && H_YIELDED() == 0,
		   "expired %lld dropped %lld yielded %lld, expected 1 0 0",
		   (long long) H_EXPIRED(), (long long) H_DROPPED(), (long long) H_YIELDED());
	finish("counts: a grant seen, then gone before release, is granted-then-expired");
}

static void
s_counts_dropped(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("cleared-without-grant-seen");
	SPIN_ACQ();
	k_switch();
	SPIN_REL();
	EXPECT(H_DROPPED() == 1 && H_EXPIRED() == 0, "cleared without grant seen %lld, grant seen and ended %lld, expected 1 0",
		   (long long) H_DROPPED(), (long long) H_EXPIRED());
	finish("counts: a request cleared at a switch with no grant seen is cleared-without-grant-seen");
}

/* item 2: a grant that ended before any hook looked is not a drop */
static void
s_counts_grant_unseen(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("cleared-without-grant-seen");
	SPIN_ACQ();
	k_grant();
	k_switch();					/* the grant expired unseen: the word reads 0 */
	SPIN_REL();
	EXPECT(H_NAMES_UNSEEN, "the patch counts a grant that ended unseen as \"dropped\" (dropped_without_grant): a grant is not a drop; the counter must say it counts clears with no grant seen");
	EXPECT(H_DROPPED() == 1 && H_EXPIRED() == 0 && H_YIELDED() == 0, "cleared-without-grant-seen %lld, seen-ended %lld, yielded %lld, expected 1 0 0",
		   (long long) H_DROPPED(), (long long) H_EXPIRED(), (long long) H_YIELDED());
	finish("counts: a grant that expires unseen is counted as cleared-without-grant-seen, not as a drop");
}

/* item 1: the stale syscall work bit after a revoked grant (debug kernel) */
static void
s_stale_work_next_hold(void)
{
	reset_all(SLICE_EXT_ALL);
	SPIN_ACQ();
	k_grant();
	k_switch();					/* revoked on the way back: word 0, work kept */
	SPIN_REL();
	SPIN_ACQ();					/* the next hold sets request */
	k_syscall();				/* pg_usleep in s_lock's back-off, I/O, ... */
	SPIN_REL();
	finish("stale syscall work: a grant revoked at a switch, a request in the next hold, a system call in it: not killed");
}

static void
s_stale_work_rearm(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	k_switch();
	SPIN_ACQ();					/* re-arms the request */
	k_syscall();
	SPIN_REL();
	LW_REL();
	finish("stale syscall work: a grant revoked inside an LWLock hold, a re-arm, a system call: not killed");
}

static void
s_stale_work_deny(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	k_deny();					/* a grant still active at the next preemption is revoked */
	LW_ACQ();
	k_syscall();
	LW_REL();
	LW_REL();
	finish("stale syscall work: a grant revoked by a second preemption, a re-arm, a system call: not killed");
}

static void
s_stale_work_yield_count(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("clear-yields");
	LW_ACQ();
	k_switch();
	LW_ACQ();					/* a clear seen at a re-arm */
	k_deny();
	LW_REL();
	LW_REL();					/* a clear seen at release */
	EXPECT(H_CLEAR_YIELDS() == 2 && yield_calls == 2 && yield_returned_1 == 0,
		   "clear yields %lld, yield calls %d, expected 2 2 (one rseq_slice_yield per clear observed)", (long long) H_CLEAR_YIELDS(), yield_calls);
	finish("counts: one rseq_slice_yield per clear observed (re-arm and release), counted in clear_yields");
}

/* item 3: a forked child starts with zero local counts */
static void
s_fork_child(void)
{
	pid_t		pid;
	int			st = 0;

	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("per-acquire");
	LW_ACQ();
	SPIN_ACQ();
	SPIN_REL();
	LW_REL();					/* the postmaster's own counts */
	fflush(stdout);
	pid = fork();
	if (pid == 0)
	{
		int			k;
		long long	sum = 0;

		pg_InitPostmasterChild();
		for (k = 0; k < SLICE_EXT_NKINDS; k++)
			sum += H_ACQ(k) + H_HOLDS(k);
		_exit(sum == 0 && SliceExt.depth == 0 ? 0 : sum > 100 ? 100 : (int) sum);
	}
	waitpid(pid, &st, 0);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "the forked child starts with %d of the parent's acquires and holds in its local counters (InitPostmasterChild does not zero them); SliceExtAttach adds them to its slot",
		   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	EXPECT(H_ACQ(SLICE_EXT_KIND_LWLOCK) == 1 && H_ACQ(SLICE_EXT_KIND_SPINLOCK) == 1, "the parent's counts changed");
	finish("fork: a child of the postmaster starts with zero local counters");
}

/* item 4: a module built against unpatched headers leaves a hold */
static void
s_unhooked_unlock_in_lwlock(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	BUF_ACQ();					/* LockBufHdr's hook is in the core */
	/* the module's inline UnlockBufHdr, compiled without the hook: nothing */
	LW_REL_ALL();				/* ERROR: AbortTransaction -> LWLockReleaseAll */
	EXPECT(SliceExt.depth == 0 && SliceExt.spin_depth == 0, "after LWLockReleaseAll: depth %d, spin depth %d", SliceExt.depth, SliceExt.spin_depth);
	EXPECT(asserts_failed == 1, "%d Assert()s failed at LWLockReleaseAll, expected 1 (assert-enabled builds name the leaked hold)", asserts_failed);
	EXPECT(H_HOLDS_RESET() == 1, "holds_reset %lld, expected 1", (long long) H_HOLDS_RESET());
	finish("a buffer header unlock without its hook (module built against unpatched headers): LWLockReleaseAll ends the hold, asserts, counts it");
}

static void
s_unhooked_unlock_alone(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	BUF_ACQ();
	LW_REL_ALL();
	EXPECT(SliceExt.depth == 0 && KCTRL[0] == 0, "a leaked spin-style hold survives LWLockReleaseAll: depth %d, request %d", SliceExt.depth, KCTRL[0]);
	finish("a leaked spin-style hold with no LWLock held is ended by LWLockReleaseAll");
}

/* item 7: the other entry points and scenarios */
static void
s_error_release_all(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	LW_ACQ();
	k_grant();
	LW_REL_ALL();
	EXPECT(SliceExt.depth == 0 && !SliceExt.lwlock_active, "depth %d after LWLockReleaseAll", SliceExt.depth);
	EXPECT(yield_returned_1 == 1, "a grant at ERROR not given back (%d yields)", yield_calls);
	EXPECT(asserts_failed == 0, "an Assert failed with only LWLocks held");
	finish("ERROR with two LWLocks held and a grant: LWLockReleaseAll ends the hold and yields");
}

static void
s_cond_acquire(void)
{
	reset_all(SLICE_EXT_LWLOCK);
	LW_COND();
	EXPECT(KCTRL[0] == 1, "LWLockConditionalAcquire: no request");
	k_switch();
	LW_ORWAIT();
	EXPECT(ARMED(), "LWLockAcquireOrWait after a switch inside the hold: no request");
	LW_REL();
	LW_REL();
	finish("LWLockConditionalAcquire and LWLockAcquireOrWait begin and re-arm the LWLock hold");
}

static void
s_release_disowned(void)
{
	if (!HAVE_pg_LWLockReleaseDisowned)
	{
		skip("LWLockReleaseDisowned of a disowned lock leaves the hold of the locks still held", "this PostgreSQL version has no LWLockReleaseDisowned");
		return;
	}
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	LW_ACQ();
	LW_DISOWN();
	EXPECT(KCTRL[0] == 1, "one LWLock still held after a disown, request gone");
	LW_REL_DISOWNED();
	EXPECT(KCTRL[0] == 1 && SliceExt.depth == 1, "LWLockReleaseDisowned ended the hold of a lock still held (request %d depth %d)", KCTRL[0], SliceExt.depth);
	LW_REL();
	finish("LWLockReleaseDisowned of a disowned lock leaves the hold of the locks still held");
}

static void
s_wakeup_in_release(void)
{
	reset_all(SLICE_EXT_ALL);
	h_waiters = 1;
	LW_ACQ();
	LW_REL();					/* wakes waiters: the wait list lock is taken inside the hold */
	EXPECT(H_ACQ(SLICE_EXT_KIND_WAIT_LIST) == 1, "LWLockRelease with waiters: %lld wait-list acquires, expected 1 (LWLockWakeup not followed)", (long long) H_ACQ(SLICE_EXT_KIND_WAIT_LIST));
	EXPECT(H_HOLDS(SLICE_EXT_KIND_WAIT_LIST) == 0, "the wakeup's wait-list lock began a hold of its own inside the LWLock hold");
	reset_all(SLICE_EXT_SPINLOCK);
	h_waiters = 1;
	LW_ACQ();
	LW_REL();
	EXPECT(H_HOLDS(SLICE_EXT_KIND_WAIT_LIST) == 1, "slice_extension = spinlock: the wakeup's wait-list lock is %lld holds, expected 1", (long long) H_HOLDS(SLICE_EXT_KIND_WAIT_LIST));
	finish("LWLockRelease with waiters follows LWLockWakeup: the wait-list hold nests in the LWLock hold, or is its own under spinlock");
}

static void
s_sleep_keeps_word(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_sleep();					/* waits for a nested LWLock on its semaphore, same CPU */
	LW_ACQ();
	EXPECT(KCTRL[0] == 1 && H_REARMED() <= 0 && yield_calls == 0, "a voluntary sleep without migration: request %d, re-armed %lld, %d yields (expected 1, 0, 0)",
		   KCTRL[0], (long long) H_REARMED(), yield_calls);
	LW_REL();
	LW_REL();
	finish("a voluntary sleep without migration keeps the word: no re-arm, no yield");
}

static void
s_signal_in_hold(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	k_signal();					/* handler runs SetLatch: a system call */
	SPIN_ACQ();
	EXPECT(ARMED(), "after a signal handler inside the hold: no request");
	k_syscall();
	SPIN_REL();
	LW_REL();
	finish("a signal (and its handler's system call) during a granted hold: re-armed, not killed");
}

static void
s_grant_at_begin(void)
{
	reset_all(SLICE_EXT_ALL);
	KCTRL[1] = 1;				/* a grant already in the word when the hold begins */
	k_granted = 1;
	k_work = 1;
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 0, "a hold that began during a grant wrote request");
	SPIN_REL();
	EXPECT(yield_returned_1 == 1, "the grant found at the start was not given back (%d yields)", yield_calls);
	finish("a grant already set when a hold begins: no request written, yielded at release");
}

static void
s_count_level(void)
{
#ifndef SLICE_EXT_COUNT
	reset_all(SLICE_EXT_ALL);
	EXPECT(0, "the patch has no count level (bookkeeping without requests)");
	finish("slice_extension = count: bookkeeping on a private word, the kernel's word untouched");
#else
	{
		static uint8 private_word[4];

		reset_all(SLICE_EXT_ALL);
		H_CTRL = private_word;	/* what assign_slice_extension() does for count */
		memset(private_word, 0, 4);
		LW_ACQ();
		SPIN_ACQ();
		k_grant();				/* the kernel sees no request: nothing to grant */
		SPIN_REL();
		LW_REL();
		EXPECT(H_ACQ(SLICE_EXT_KIND_LWLOCK) == 1 && H_ACQ(SLICE_EXT_KIND_SPINLOCK) == 1 && H_HOLDS(SLICE_EXT_KIND_LWLOCK) == 1,
			   "count: the bookkeeping of all was not done");
		EXPECT(k_granted == 0 && yield_calls == 0 && KCTRL[0] == 0, "count: the kernel's word was written (granted %d, %d yields)", k_granted, yield_calls);
		H_CTRL = KCTRL;
		finish("slice_extension = count: bookkeeping on a private word, the kernel's word untouched");
	}
#endif
}

static void
s_counts_acquires(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("per-acquire");
	LW_ACQ();
	LW_ACQ();
	SPIN_ACQ();
	BUF_ACQ();
	BUF_REL();
	SPIN_REL();
	LW_REL();
	LW_REL();
	WL_ACQ();
	WL_REL();
	EXPECT(H_ACQ(SLICE_EXT_KIND_LWLOCK) == 2 && H_ACQ(SLICE_EXT_KIND_SPINLOCK) == 1 &&
		   H_ACQ(SLICE_EXT_KIND_BUFFER_HEADER) == 1 && H_ACQ(SLICE_EXT_KIND_WAIT_LIST) == 1,
		   "acquires lwlock %lld spinlock %lld buffer header %lld wait list %lld, expected 2 1 1 1",
		   (long long) H_ACQ(SLICE_EXT_KIND_LWLOCK), (long long) H_ACQ(SLICE_EXT_KIND_SPINLOCK),
		   (long long) H_ACQ(SLICE_EXT_KIND_BUFFER_HEADER), (long long) H_ACQ(SLICE_EXT_KIND_WAIT_LIST));
	EXPECT(H_HOLDS(SLICE_EXT_KIND_LWLOCK) == 1 && H_HOLDS(SLICE_EXT_KIND_WAIT_LIST) == 1 &&
		   H_HOLDS(SLICE_EXT_KIND_SPINLOCK) == 0,
		   "holds lwlock %lld wait list %lld spinlock %lld, expected 1 1 0",
		   (long long) H_HOLDS(SLICE_EXT_KIND_LWLOCK), (long long) H_HOLDS(SLICE_EXT_KIND_WAIT_LIST),
		   (long long) H_HOLDS(SLICE_EXT_KIND_SPINLOCK));
	finish("counts: every covered acquire (nested too) and every hold begun, by kind");
}

static void
s_counts_yield_raced(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("granted-then-expired");
	k_debug = 0;				/* the word is stale by construction here */
	SPIN_ACQ();
	k_grant();
	k_forget_grant();			/* revoked in the kernel, word not yet updated */
	SPIN_REL();
	EXPECT(yield_calls == 1, "%d yields", yield_calls);
	EXPECT(H_EXPIRED() == 1 && H_YIELDED() == 0, "yield returned 0: expired %lld yielded %lld, expected 1 0",
		   (long long) H_EXPIRED(), (long long) H_YIELDED());
	finish("counts: rseq_slice_yield returning 0 is counted as expired, not yielded");
}

int
main(void)
{
	s_spin_simple();
	s_spin_grant_yield();
	s_nested_spin_after_switch();
	s_lw_spin_after_switch();
	s_lw_lw_after_switch();
	s_lw_after_denial();
	s_no_write_while_granted();
	s_grant_switch_nested();
	s_rearm_then_grant_yield();
	s_grant_syscall_nested();
	s_loop_switches();
	s_bufhdr_armed();
	s_bufhdr_in_lw_after_switch();
	s_waitlist_armed();
	s_waitlist_wakeup();
	s_disown_ends_hold();
	s_disown_then_spin();
	s_mode_spinlock();
	s_mode_lwlock();
	s_mask_change_while_held();
	s_counts_rearm();
	s_counts_yield();
	s_counts_expired();
	s_counts_dropped();
	s_counts_acquires();
	s_counts_yield_raced();
	s_counts_grant_unseen();
	s_stale_work_next_hold();
	s_stale_work_rearm();
	s_stale_work_deny();
	s_stale_work_yield_count();
	s_fork_child();
	s_unhooked_unlock_in_lwlock();
	s_unhooked_unlock_alone();
	s_error_release_all();
	s_cond_acquire();
	s_release_disowned();
	s_wakeup_in_release();
	s_sleep_keeps_word();
	s_signal_in_hold();
	s_grant_at_begin();
	s_count_level();
	printf("summary passed=%d failed=%d skipped=%d\n", npass, nfail, nskip);
	return 0;
}
