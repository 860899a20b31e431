/* Linux system calls that Swift's Glibc module does not export: epoll(7) for the event loop,
   eventfd(2) for its wake-up, timerfd_create(2) for its timers (docs/concurrency.md); and
   prctl(2), variadic and so not callable from Swift, for the tests' stack dumps. */

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>

/* Lets any process of the same user trace this one (Yama's ptrace scope 1 otherwise allows
   only ancestors): a test that overran its time limit runs gdb, its child, on itself. */
static inline void pg_allow_any_tracer(void) { (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); }
