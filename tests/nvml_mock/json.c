/* A recursive-descent JSON reader (RFC 8259), enough for scenario files of a few kilobytes. */
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    const char *start;
    const char *at;
    char *error;
    size_t error_size;
    int failed;
} parser;

static void fail(parser *p, const char *what) {
    if (!p->failed) {
        snprintf(p->error, p->error_size, "%s at byte %ld", what, (long)(p->at - p->start));
        p->failed = 1;
    }
}

static void skip_space(parser *p) {
    while (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r') p->at++;
}

static json_value *new_value(json_kind kind) {
    json_value *v = calloc(1, sizeof *v);
    if (v) v->kind = kind;
    return v;
}

static int push(void ***array, size_t count, void *item) {
    void **grown = realloc(*array, (count + 1) * sizeof **array);
    if (!grown) return 0;
    grown[count] = item;
    *array = grown;
    return 1;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Append code point `cp` as UTF-8. */
static size_t put_utf8(char *out, unsigned long cp) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | (cp >> 6)); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static long read_hex4(parser *p) {
    long value = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(p->at[i]);
        if (d < 0) { fail(p, "bad \\u escape"); return -1; }
        value = value * 16 + d;
    }
    p->at += 4;
    return value;
}

/* A string starting at the opening quote; returns a malloc'd UTF-8 copy. */
static char *parse_string(parser *p) {
    p->at++; /* the quote */
    /* Escapes never make the text longer than the source (a \uXXXX of 6 bytes is at most 4). */
    const char *end = p->at;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    if (*end != '"') { fail(p, "unterminated string"); return NULL; }
    char *out = malloc((size_t)(end - p->at) + 1);
    if (!out) { fail(p, "out of memory"); return NULL; }
    size_t n = 0;
    while (*p->at != '"') {
        unsigned char c = (unsigned char)*p->at;
        if (c < 0x20) { fail(p, "control character in string"); free(out); return NULL; }
        if (c != '\\') { out[n++] = (char)c; p->at++; continue; }
        p->at++;
        char e = *p->at++;
        switch (e) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            long cp = read_hex4(p);
            if (cp < 0) { free(out); return NULL; }
            if (cp >= 0xD800 && cp <= 0xDBFF && p->at[0] == '\\' && p->at[1] == 'u') {
                p->at += 2;
                long low = read_hex4(p);
                if (low < 0xDC00 || low > 0xDFFF) { fail(p, "bad surrogate pair"); free(out); return NULL; }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            n += put_utf8(out + n, (unsigned long)cp);
            break;
        }
        default: fail(p, "bad escape"); free(out); return NULL;
        }
    }
    p->at++; /* the closing quote */
    out[n] = '\0';
    return out;
}

static json_value *parse_value(parser *p, int depth);

static json_value *parse_number(parser *p) {
    const char *begin = p->at;
    int integral = 1;
    if (*p->at == '-') p->at++;
    if (*p->at < '0' || *p->at > '9') { fail(p, "bad number"); return NULL; }
    while (*p->at >= '0' && *p->at <= '9') p->at++;
    if (*p->at == '.' || *p->at == 'e' || *p->at == 'E') {
        integral = 0;
        if (*p->at == '.') { p->at++; while (*p->at >= '0' && *p->at <= '9') p->at++; }
        if (*p->at == 'e' || *p->at == 'E') {
            p->at++;
            if (*p->at == '+' || *p->at == '-') p->at++;
            if (*p->at < '0' || *p->at > '9') { fail(p, "bad exponent"); return NULL; }
            while (*p->at >= '0' && *p->at <= '9') p->at++;
        }
    }
    json_value *v = new_value(JSON_NUMBER);
    if (!v) { fail(p, "out of memory"); return NULL; }
    v->number = strtod(begin, NULL);
    if (integral) {
        errno = 0;
        if (*begin == '-') {
            v->integer = strtoll(begin, NULL, 10);
            v->is_integer = errno == 0;
        } else {
            v->uinteger = strtoull(begin, NULL, 10);
            v->integer = (long long)v->uinteger;
            v->is_integer = errno == 0;
        }
    }
    return v;
}

static json_value *parse_array(parser *p, int depth) {
    json_value *v = new_value(JSON_ARRAY);
    if (!v) { fail(p, "out of memory"); return NULL; }
    p->at++;
    skip_space(p);
    if (*p->at == ']') { p->at++; return v; }
    for (;;) {
        json_value *item = parse_value(p, depth + 1);
        if (!item || !push((void ***)&v->items, v->count, item)) { json_free(item); json_free(v); return NULL; }
        v->count++;
        skip_space(p);
        if (*p->at == ',') { p->at++; continue; }
        if (*p->at == ']') { p->at++; return v; }
        fail(p, "expected ',' or ']'");
        json_free(v);
        return NULL;
    }
}

static json_value *parse_object(parser *p, int depth) {
    json_value *v = new_value(JSON_OBJECT);
    if (!v) { fail(p, "out of memory"); return NULL; }
    p->at++;
    skip_space(p);
    if (*p->at == '}') { p->at++; return v; }
    for (;;) {
        skip_space(p);
        if (*p->at != '"') { fail(p, "expected a member name"); json_free(v); return NULL; }
        char *key = parse_string(p);
        if (!key) { json_free(v); return NULL; }
        skip_space(p);
        if (*p->at != ':') { fail(p, "expected ':'"); free(key); json_free(v); return NULL; }
        p->at++;
        json_value *item = parse_value(p, depth + 1);
        if (!item || !push((void ***)&v->keys, v->count, key)) {
            free(key); json_free(item); json_free(v); return NULL;
        }
        if (!push((void ***)&v->items, v->count, item)) {
            free(key); v->keys[v->count] = NULL; json_free(item); json_free(v); return NULL;
        }
        v->count++;
        skip_space(p);
        if (*p->at == ',') { p->at++; continue; }
        if (*p->at == '}') { p->at++; return v; }
        fail(p, "expected ',' or '}'");
        json_free(v);
        return NULL;
    }
}

static json_value *parse_literal(parser *p, const char *word, json_kind kind, int boolean) {
    size_t n = strlen(word);
    if (strncmp(p->at, word, n) != 0) { fail(p, "unexpected character"); return NULL; }
    p->at += n;
    json_value *v = new_value(kind);
    if (!v) { fail(p, "out of memory"); return NULL; }
    v->boolean = boolean;
    return v;
}

static json_value *parse_value(parser *p, int depth) {
    if (depth > MAX_DEPTH) { fail(p, "nested too deeply"); return NULL; }
    skip_space(p);
    switch (*p->at) {
    case '{': return parse_object(p, depth);
    case '[': return parse_array(p, depth);
    case '"': {
        char *s = parse_string(p);
        if (!s) return NULL;
        json_value *v = new_value(JSON_STRING);
        if (!v) { free(s); fail(p, "out of memory"); return NULL; }
        v->string = s;
        return v;
    }
    case 't': return parse_literal(p, "true", JSON_BOOL, 1);
    case 'f': return parse_literal(p, "false", JSON_BOOL, 0);
    case 'n': return parse_literal(p, "null", JSON_NULL, 0);
    case '\0': fail(p, "unexpected end of file"); return NULL;
    default: return parse_number(p);
    }
}

json_value *json_parse(const char *text, char *error, size_t error_size) {
    parser p = {text, text, error, error_size, 0};
    json_value *v = parse_value(&p, 0);
    if (v) {
        skip_space(&p);
        if (*p.at != '\0') { fail(&p, "text after the value"); json_free(v); return NULL; }
    }
    return v;
}

void json_free(json_value *value) {
    if (!value) return;
    for (size_t i = 0; i < value->count; i++) {
        json_free(value->items[i]);
        if (value->keys) free(value->keys[i]);
    }
    free(value->items);
    free(value->keys);
    free(value->string);
    free(value);
}

const json_value *json_get(const json_value *object, const char *key) {
    if (!object || object->kind != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0) return object->items[i];
    return NULL;
}
