/* syscall_table: Linux syscall names by ABI and number (raw_syscalls
 * sys_enter ids). Static tables only; lookups never fail on bad input. */
#ifndef WEFT_MODEL_SYSCALL_TABLE_H
#define WEFT_MODEL_SYSCALL_TABLE_H

#include <stdint.h>

typedef enum syscall_abi {
  SYSCALL_ABI_UNKNOWN = -1,
  SYSCALL_ABI_ARM64 = 0,
  SYSCALL_ABI_X86_64 = 1,
  SYSCALL_ABI_I386 = 2
} syscall_abi;

/* The ABI of a utsname machine string ("aarch64", "x86_64", "i686"...);
 * NULL or empty (no system info) is arm64, the common Android case;
 * anything else (e.g. 32-bit arm) is UNKNOWN. */
syscall_abi syscall_abi_from_machine(const char *arch);
/* "write" for (ARM64, 64); NULL when unknown. */
const char *syscall_name(syscall_abi abi, int64_t number);

#endif
