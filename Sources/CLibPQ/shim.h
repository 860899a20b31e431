#ifndef PUSHGATE_CLIBPQ_SHIM_H
#define PUSHGATE_CLIBPQ_SHIM_H

#include <stddef.h>
#include <postgresql/libpq-fe.h>

/// The PG_DIAG_* field codes are character-literal macros, which do not import.
static inline int pushgate_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int pushgate_pq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }

#endif
