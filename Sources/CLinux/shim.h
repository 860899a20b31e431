/* Linux system calls that Swift's Glibc module does not export: epoll(7) for the event loop,
   eventfd(2) for its wake-up, timerfd_create(2) for its timers (docs/concurrency.md). */

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
