/* syscall_table: Linux syscall names by ABI and number (raw_syscalls
 * sys_enter ids). Static tables only; lookups never fail on bad input. */
#ifndef WEFT_MODEL_SYSCALL_TABLE_H
#define WEFT_MODEL_SYSCALL_TABLE_H

#include <stdint.h>

typedef enum syscall_abi {
  SYSCALL_ABI_UNKNOWN = -1,
  SYSCALL_ABI_ARM64 = 0,
  SYSCALL_ABI_X86_64 = 1,
  SYSCALL_ABI_I386 = 2,
  SYSCALL_ABI_ARM = 3 /* 32-bit arm (EABI) */
} syscall_abi;

/* Syscall numbers below this make a slice, named by the ABI's table or
 * "sys_<number>" where it has none (Perfetto's kMaxSyscalls). */
#define SYSCALL_MAX 550

/* The ABI of a utsname machine string, as Perfetto reads it: exactly
 * "aarch64", "x86_64", "i686", or "armv7l"/"armv8l" (32-bit arm, a 32-bit
 * kernel or a 32-bit userspace on a 64-bit one); anything else (NULL: no
 * system info, "arm64") is UNKNOWN. */
syscall_abi syscall_abi_from_machine(const char *arch);
/* "write" for (ARM64, 64); NULL when unknown. */
const char *syscall_name(syscall_abi abi, int64_t number);

#endif
