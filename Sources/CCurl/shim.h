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

/* The multi interface, driven by the caller's own epoll loop (curl_multi_socket_action) with a
   timerfd for libcurl's timer (both from CLinux). */

typedef int (*pushgate_curl_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *context, void *socketContext);
typedef int (*pushgate_curl_timer_callback)(CURLM *multi, long timeoutMs, void *context);

static inline CURLMcode pushgate_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode pushgate_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode pushgate_curl_multi_setopt_socket_function(CURLM *multi, pushgate_curl_socket_callback callback) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback);
}

static inline CURLMcode pushgate_curl_multi_setopt_timer_function(CURLM *multi, pushgate_curl_timer_callback callback) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback);
}

/* The outcome of a finished transfer (a member of CURLMsg's union). */
static inline CURLcode pushgate_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}

/* The version of the libcurl loaded (CURLVERSION_NOW is a macro naming an enum constant). */
static inline const char *pushgate_curl_version(void) {
    const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
    return info ? info->version : NULL;
}
