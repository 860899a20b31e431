#ifndef PUSHGATE_CSODIUM_SHIM_H
#define PUSHGATE_CSODIUM_SHIM_H

#include <stddef.h>
#include <sodium.h>

#endif
