// The C libraries vkbd stands on, and the few shims Swift needs to reach
// what they define as macros. Every shim is prefixed CEvdev_.
#ifndef CEVDEV_SHIM_H
#define CEVDEV_SHIM_H

#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <libudev.h>
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/input.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <malloc.h>  // malloc_trim: the daemon returns its start-up heap
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

// EVIOCGKEY(len) is an ioctl request macro, which Swift does not import: the
// bitmask of the keys a device has down right now.
static inline int CEvdev_getKeyState(int fd, unsigned char *bits, unsigned long length) {
  return ioctl(fd, EVIOCGKEY(length), bits);
}

// prctl and syscall are variadic, and the BPF instructions of a seccomp
// filter are macros: the three steps by which the daemon gives up what it no
// longer needs once it has started.

// No privilege can be gained again, through exec or otherwise.
static inline int CEvdev_setNoNewPrivileges(void) {
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

// Empties the effective, permitted and inheritable capability sets.
static inline int CEvdev_dropCapabilities(void) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0, 0, 0}};
  return (int)syscall(SYS_capset, &header, data);
}

#if defined(__x86_64__)
#define CEVDEV_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CEVDEV_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

// A seccomp filter under which execve and execveat fail with EPERM, as does
// every system call of another ABI (i386 or x32 on x86_64), which the daemon
// never makes. Needs no-new-privileges first.
static inline int CEvdev_forbidExec(void) {
#ifdef CEVDEV_AUDIT_ARCH
  struct sock_filter filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CEVDEV_AUDIT_ARCH, 0, 4),
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
