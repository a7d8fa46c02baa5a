#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call: the one setting etl makes.
/// Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS). Only before the first
/// connection opens; later it returns SQLITE_MISUSE and changes nothing.
static inline int etl_sqlite3_config_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
