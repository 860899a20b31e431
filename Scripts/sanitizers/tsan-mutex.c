// Shows ThreadSanitizer the lock hand-offs of Swift's `Synchronization.Mutex` on Linux
// (docs/architecture.md, "Sanitizers"). Scripts/sanitize builds it and preloads it.
//
// `Mutex.withLock` is inlined into our code, so its uncontended lock and unlock (atomic
// compare-and-exchange) are instrumented. A contended lock or unlock calls `_lockSlow`,
// `_tryLockSlow` or `_unlockSlow` in libswiftSynchronization.so, which is not instrumented and
// takes or hands over the lock with its own atomics and a PI futex: ThreadSanitizer sees no
// synchronization there and reports the accesses inside the lock as races. These wrappers
// stand in for the three functions, call the real ones, and tell ThreadSanitizer that the lock
// word was acquired (after a slow lock) or released (before a slow unlock). x86-64 only: a
// `_MutexHandle` method gets its `self`, the lock word's address, in r13 (Swift's self
// register), which the System V ABI has every callee preserve.
#define _GNU_SOURCE
#include <dlfcn.h>

// Weak: the library is preloaded into every process a test starts, sanitized or not.
void __tsan_acquire(void *address) __attribute__((weak));
void __tsan_release(void *address) __attribute__((weak));

#define HIDDEN __attribute__((visibility("hidden")))
#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

HIDDEN void *real_lock_slow, *real_try_lock_slow, *real_unlock_slow;

HIDDEN void acquired(void *lock) { if (__tsan_acquire) __tsan_acquire(lock); }
HIDDEN void releasing(void *lock) { if (__tsan_release) __tsan_release(lock); }

__attribute__((constructor)) static void find_real_functions(void) {
    real_lock_slow = dlsym(RTLD_NEXT, LOCK_SLOW);
    real_try_lock_slow = dlsym(RTLD_NEXT, TRY_LOCK_SLOW);
    real_unlock_slow = dlsym(RTLD_NEXT, UNLOCK_SLOW);
}

__asm__(
    // _lockSlow(tid in edi), self in r13: lock, then acquired(self).
    ".text\n"
    ".globl \"" LOCK_SLOW "\"\n"
    ".type \"" LOCK_SLOW "\", @function\n"
    "\"" LOCK_SLOW "\":\n"
    "  push %rbp\n"
    "  mov %rsp, %rbp\n"
    "  call *real_lock_slow(%rip)\n"
    "  mov %r13, %rdi\n"
    "  call acquired\n"
    "  pop %rbp\n"
    "  ret\n"
    // _tryLockSlow() -> Bool in al: when it took the lock, acquired(self).
    ".globl \"" TRY_LOCK_SLOW "\"\n"
    ".type \"" TRY_LOCK_SLOW "\", @function\n"
    "\"" TRY_LOCK_SLOW "\":\n"
    "  push %rbp\n"
    "  mov %rsp, %rbp\n"
    "  push %rbx\n"
    "  sub $8, %rsp\n"
    "  call *real_try_lock_slow(%rip)\n"
    "  movzbl %al, %ebx\n"
    "  test %ebx, %ebx\n"
    "  jz 1f\n"
    "  mov %r13, %rdi\n"
    "  call acquired\n"
    "1:\n"
    "  mov %ebx, %eax\n"
    "  add $8, %rsp\n"
    "  pop %rbx\n"
    "  pop %rbp\n"
    "  ret\n"
    // _unlockSlow(): releasing(self), then unlock.
    ".globl \"" UNLOCK_SLOW "\"\n"
    ".type \"" UNLOCK_SLOW "\", @function\n"
    "\"" UNLOCK_SLOW "\":\n"
    "  push %rbp\n"
    "  mov %rsp, %rbp\n"
    "  mov %r13, %rdi\n"
    "  call releasing\n"
    "  pop %rbp\n"
    "  jmp *real_unlock_slow(%rip)\n"
);
