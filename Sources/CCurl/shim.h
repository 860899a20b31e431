#include <stddef.h>
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: fixed-arity
   wrappers, one per argument type. */

typedef size_t (*pushgate_curl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode pushgate_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pushgate_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pushgate_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode pushgate_curl_setopt_write_function(CURL *handle, pushgate_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode pushgate_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
