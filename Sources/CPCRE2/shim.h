// PCRE2 for UTF-32 text (libpcre2-32): the engine matches regexes on the
// Unicode scalars it already holds, with no conversion. The shims give
// Swift what pcre2.h defines as macros it cannot import. Every shim is
// prefixed CPCRE2_.
#ifndef CPCRE2_SHIM_H
#define CPCRE2_SHIM_H

#define PCRE2_CODE_UNIT_WIDTH 32
#include <pcre2.h>

// A pattern of `length` code units (PCRE2_ZERO_TERMINATED is a cast).
static inline pcre2_code_32 *CPCRE2_compile(const uint32_t *pattern, size_t length, uint32_t options,
                                            int *error, size_t *offset, pcre2_compile_context_32 *context) {
  return pcre2_compile_32(pattern, length, options, error, offset, context);
}

// The message of a compile or match error, in `buffer`.
static inline int CPCRE2_errorMessage(int error, uint32_t *buffer, size_t length) {
  return pcre2_get_error_message_32(error, buffer, length);
}

#endif
