#ifndef PUSHGATE_CSQLITE_SHIM_H
#define PUSHGATE_CSQLITE_SHIM_H

#include <stddef.h>
#include <sqlite3.h>

#endif
