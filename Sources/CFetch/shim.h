// What vkbd-fetch, the hub packages' downloader, links: libcurl for HTTP(S),
// libarchive for the zip archives, nettle for SHA-256. Only vkbd-fetch
// links them: neither the daemon nor the agent does.
#ifndef CFETCH_SHIM_H
#define CFETCH_SHIM_H

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <nettle/sha2.h>

// curl_easy_setopt and curl_easy_getinfo are variadic: Swift cannot call
// them. One typed function for each kind of value they take.
static inline CURLcode CFetch_setLong(CURL *curl, CURLoption option, long value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode CFetch_setString(CURL *curl, CURLoption option, const char *value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode CFetch_setPointer(CURL *curl, CURLoption option, void *value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode CFetch_setOffset(CURL *curl, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(curl, option, value);
}
typedef size_t (*CFetch_Writer)(char *data, size_t size, size_t count, void *context);
static inline CURLcode CFetch_setWriter(CURL *curl, CFetch_Writer writer) {
  return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, writer);
}
static inline CURLcode CFetch_responseCode(CURL *curl, long *code) {
  return curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, code);
}

#endif
