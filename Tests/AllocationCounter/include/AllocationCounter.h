// Counts heap allocations made by the calling thread, for tests that prove a
// code path allocates nothing. Linking this target into a test binary
// interposes malloc and friends; each forwards to glibc's own allocator.
#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

/// Starts counting this thread's allocations from zero.
void AllocationCounter_start(void);
/// Stops counting and returns how many allocations this thread made.
long AllocationCounter_stop(void);

#endif
