#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call: the one setting etl makes.
/// Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS). Only before the first
/// connection opens; later it returns SQLITE_MISUSE and changes nothing.
static inline int etl_sqlite3_config_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#if defined(__linux__)
/// sync_file_range(2) (glibc declares it only under _GNU_SOURCE): starts writing a file's
/// dirty pages out without waiting for them (SYNC_FILE_RANGE_WRITE is 2).
extern int sync_file_range(int fd, long long offset, long long nbytes, unsigned int flags);
static inline int etl_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, 2);
}
#endif
