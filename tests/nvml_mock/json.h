/* A small JSON reader for the mock NVML library's scenario files (RFC 8259 values; no writer).
 *
 * Numbers keep their exact integer value when written without a fraction or exponent, so byte counts
 * above 2^53 survive; strings are decoded to UTF-8.
 */
#ifndef MOCK_NVML_JSON_H
#define MOCK_NVML_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json_value json_value;

struct json_value {
    json_kind kind;
    int boolean;
    double number;
    int is_integer;              /* written as an integer: `integer` holds it exactly */
    long long integer;
    unsigned long long uinteger; /* the same integer when it is >= 0, up to 2^64 - 1 */
    char *string;
    size_t count;                /* array items or object members */
    json_value **items;          /* arrays and object values */
    char **keys;                 /* object member names */
};

/* Parse `text`. NULL on a syntax error, with a one-line reason (and byte offset) in `error`. */
json_value *json_parse(const char *text, char *error, size_t error_size);
void json_free(json_value *value);

/* The member `key` of an object, or NULL (also when `object` is not an object). */
const json_value *json_get(const json_value *object, const char *key);

#endif
