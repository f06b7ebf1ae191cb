// The Linux system calls and headers LinuxSystem wraps that Swift's Glibc
// module does not bring, and the few that are macros or variadic in C.
// Every shim is prefixed CLinuxSystem_.
#ifndef CLINUXSYSTEM_SHIM_H
#define CLINUXSYSTEM_SHIM_H

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>  // malloc_trim: the daemon returns its start-up heap
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

// Swaps two paths at once (renameat2 RENAME_EXCHANGE, Linux 3.15): a hub
// package is replaced by its new version with no moment where neither is
// there. glibc declares renameat2 for _GNU_SOURCE only: the system call.
static inline int CLinuxSystem_exchangePaths(const char *first, const char *second) {
  return (int)syscall(SYS_renameat2, AT_FDCWD, first, AT_FDCWD, second, 2 /* RENAME_EXCHANGE */);
}

// Large blocks (a table of snippets, a trie, a dictionary) come straight
// from mmap and go straight back when freed: glibc's threshold for that
// otherwise rises with each large block freed, and the blocks of a reload's
// engine would then stay in a thread's arena as free heap. M_MMAP_THRESHOLD
// is a macro.
static inline int CLinuxSystem_mapLargeBlocks(int bytes) {
  return mallopt(M_MMAP_THRESHOLD, bytes);
}

// PR_SET_THP_DISABLE and PR_GET_THP_DISABLE (Linux 3.15), through the
// variadic prctl(2).
static inline int CLinuxSystem_forbidHugePages(void) {
  return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

static inline int CLinuxSystem_hugePagesForbidden(void) {
  return prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
}

// The calling thread at the least priority, for work that must never take
// the CPU from the keys: SCHED_IDLE (sched(7)), and nice 19 where that is
// refused. Under CFS a thread woken from a read gets the same head start as
// one woken by a key, whatever its nice, and a loader at nice 19 waking from
// its file reads ran before the daemon's loop for a millisecond in the VM; a
// SCHED_IDLE thread gets a small head start, and a thread of another policy
// that wakes takes the CPU from it at once. Both calls take a thread's id;
// SCHED_IDLE is a macro only for _GNU_SOURCE (5).
static inline int CLinuxSystem_lowerThreadPriority(void) {
  pid_t thread = (pid_t)syscall(SYS_gettid);
  int niced = setpriority(PRIO_PROCESS, (id_t)thread, 19);
  struct sched_param none = {0};
  return syscall(SYS_sched_setscheduler, thread, 5 /* SCHED_IDLE */, &none) == 0 ? 0 : niced;
}

// The calling thread under SCHED_FIFO at `priority`, the threads it makes
// from then on at the ordinary policy (SCHED_RESET_ON_FORK, a macro only
// for _GNU_SOURCE). Returns 0 or the errno.
static inline int CLinuxSystem_runInRealTime(int priority) {
  struct sched_param param = {.sched_priority = priority};
  return sched_setscheduler(0, SCHED_FIFO | 0x40000000 /* SCHED_RESET_ON_FORK */, &param) == 0 ? 0 : errno;
}

// How long a real-time thread may run without blocking (RLIMIT_RTTIME):
// SIGXCPU at `microseconds`, SIGKILL at twice it. Returns 0 or the errno.
static inline int CLinuxSystem_boundRealTime(unsigned long microseconds) {
  struct rlimit bound = {.rlim_cur = microseconds, .rlim_max = 2 * microseconds};
  return setrlimit(RLIMIT_RTTIME, &bound) == 0 ? 0 : errno;
}

// The calling thread's policy and priority (sched_getscheduler(2) and
// sched_getparam(2)); the policy without SCHED_RESET_ON_FORK.
static inline int CLinuxSystem_schedulingPolicy(int *priority) {
  struct sched_param param = {0};
  *priority = sched_getparam(0, &param) == 0 ? param.sched_priority : 0;
  return sched_getscheduler(0) & ~0x40000000;
}

// pidfd_open(2), Linux 5.3: an fd that becomes readable when the process
// ends. glibc declares it only from 2.36, and syscall(2) is variadic.
static inline int CLinuxSystem_pidfdOpen(pid_t pid) {
  return (int)syscall(SYS_pidfd_open, pid, 0);
}

// memfd_create(2): an anonymous file, for a child's standard input written
// whole before it starts (no pipe to feed while it runs).
static inline int CLinuxSystem_memfdCreate(const char *name) {
  return (int)syscall(SYS_memfd_create, name, 1U /* MFD_CLOEXEC */);
}

// pipe2(2), which glibc declares only with _GNU_SOURCE: a pipe whose ends
// are close-on-exec from the start, and whose read end (only: a child
// writes to the other) does not block.
static inline int CLinuxSystem_pipe(int fds[2]) {
  if (syscall(SYS_pipe2, fds, O_CLOEXEC) != 0) return -1;
  return fcntl(fds[0], F_SETFL, O_NONBLOCK);
}

// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC, which glibc declares only
// with _GNU_SOURCE.
static inline int CLinuxSystem_accept(int fd) {
  return (int)syscall(SYS_accept4, fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

// prctl and syscall are variadic, and the BPF instructions of a seccomp
// filter are macros: the three steps by which the daemon gives up what it no
// longer needs once it has started.

// No privilege can be gained again, through exec or otherwise.
static inline int CLinuxSystem_setNoNewPrivileges(void) {
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

// Empties the effective, permitted and inheritable capability sets.
static inline int CLinuxSystem_dropCapabilities(void) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0, 0, 0}};
  return (int)syscall(SYS_capset, &header, data);
}

#if defined(__x86_64__)
#define CLINUXSYSTEM_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CLINUXSYSTEM_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

// A seccomp filter under which execve and execveat fail with EPERM, as does
// every system call of another ABI (i386 or x32 on x86_64), which the daemon
// never makes. Needs no-new-privileges first.
static inline int CLinuxSystem_forbidExec(void) {
#ifdef CLINUXSYSTEM_AUDIT_ARCH
  struct sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLINUXSYSTEM_AUDIT_ARCH, 0, 4),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 2, 0),  // the x32 bit
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
  return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#else
  errno = ENOSYS;
  return -1;
#endif
}

#endif
