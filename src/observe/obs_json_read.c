/* Recursive-descent JSON reader (RFC 8259), enough for psim's own documents: numbers through
 * strtod, strings with every escape (\u as UTF-8, surrogate pairs joined), nesting bounded so
 * a hostile file cannot exhaust the stack. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obs_json_read.h"
#include "psim/util.h"

typedef VEC(char) charbuf;

typedef struct jp { const char *s, *e; char *err; size_t errlen; int depth; } jp;

enum { MAX_DEPTH = 200 };

static int fail(jp *p, const char *what) {
  if (!p->err[0]) snprintf(p->err, p->errlen, "JSON: %s at byte %ld", what, (long)(p->e - p->s));
  return -1;
}

static void ws(jp *p, const char *end) {
  while (p->e < end && (*p->e == ' ' || *p->e == '\t' || *p->e == '\n' || *p->e == '\r')) p->e++;
}

static void put_utf8(charbuf *b, unsigned c) {
  if (c < 0x80) VEC_PUSH(*b, (char)c);
  else if (c < 0x800) { VEC_PUSH(*b, (char)(0xC0 | c >> 6)); VEC_PUSH(*b, (char)(0x80 | (c & 0x3F))); }
  else if (c < 0x10000) {
    VEC_PUSH(*b, (char)(0xE0 | c >> 12)); VEC_PUSH(*b, (char)(0x80 | ((c >> 6) & 0x3F)));
    VEC_PUSH(*b, (char)(0x80 | (c & 0x3F)));
  } else {
    VEC_PUSH(*b, (char)(0xF0 | c >> 18)); VEC_PUSH(*b, (char)(0x80 | ((c >> 12) & 0x3F)));
    VEC_PUSH(*b, (char)(0x80 | ((c >> 6) & 0x3F))); VEC_PUSH(*b, (char)(0x80 | (c & 0x3F)));
  }
}

static int hex4(jp *p, const char *end, unsigned *out) {
  if (end - p->e < 4) return fail(p, "short \\u escape");
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = *p->e++;
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return fail(p, "bad \\u escape");
  }
  *out = v;
  return 0;
}

static int string(jp *p, const char *end, char **out) {
  charbuf b = {0};
  p->e++;   /* opening quote */
  while (p->e < end && *p->e != '"') {
    unsigned char c = (unsigned char)*p->e++;
    if (c < 0x20) { VEC_FREE(b); return fail(p, "control character in string"); }
    if (c != '\\') { VEC_PUSH(b, (char)c); continue; }
    if (p->e >= end) break;
    char x = *p->e++;
    unsigned u;
    switch (x) {
    case '"': case '\\': case '/': VEC_PUSH(b, x); break;
    case 'b': VEC_PUSH(b, '\b'); break;
    case 'f': VEC_PUSH(b, '\f'); break;
    case 'n': VEC_PUSH(b, '\n'); break;
    case 'r': VEC_PUSH(b, '\r'); break;
    case 't': VEC_PUSH(b, '\t'); break;
    case 'u':
      if (hex4(p, end, &u) < 0) { VEC_FREE(b); return -1; }
      if (u >= 0xD800 && u < 0xDC00 && end - p->e >= 6 && p->e[0] == '\\' && p->e[1] == 'u') {
        unsigned lo;
        p->e += 2;
        if (hex4(p, end, &lo) < 0) { VEC_FREE(b); return -1; }
        if (lo >= 0xDC00 && lo < 0xE000) u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
        else { put_utf8(&b, 0xFFFD); u = lo; }
      }
      put_utf8(&b, u);
      break;
    default: VEC_FREE(b); return fail(p, "bad escape");
    }
  }
  if (p->e >= end) { VEC_FREE(b); return fail(p, "unterminated string"); }
  p->e++;
  VEC_PUSH(b, 0);
  *out = b.data;
  return 0;
}

static int value(jp *p, const char *end, jv *v);

static int container(jp *p, const char *end, jv *v, int obj) {
  if (++p->depth > MAX_DEPTH) return fail(p, "nesting too deep");
  v->type = obj ? JV_OBJ : JV_ARR;
  p->e++;
  VEC(jv) items = {0};
  VEC(char *) keys = {0};
  ws(p, end);
  int rc = 0;
  if (p->e < end && *p->e == (obj ? '}' : ']')) { p->e++; goto done; }
  for (;;) {
    ws(p, end);
    if (obj) {
      char *k = NULL;
      if (p->e >= end || *p->e != '"') { rc = fail(p, "expected a key"); break; }
      if (string(p, end, &k) < 0) { rc = -1; break; }
      VEC_PUSH(keys, k);
      ws(p, end);
      if (p->e >= end || *p->e != ':') { rc = fail(p, "expected ':'"); break; }
      p->e++;
    }
    jv item = {0};
    if (value(p, end, &item) < 0) { VEC_PUSH(items, item); rc = -1; break; }
    VEC_PUSH(items, item);
    ws(p, end);
    if (p->e < end && *p->e == ',') { p->e++; continue; }
    if (p->e < end && *p->e == (obj ? '}' : ']')) { p->e++; break; }
    rc = fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    break;
  }
done:
  v->items = items.data;
  v->n = items.len;
  v->keys = keys.data;
  if (obj && keys.len < items.len) v->n = keys.len;   /* on error: free what was paired */
  if (obj && keys.len > items.len) { for (size_t i = items.len; i < keys.len; i++) free(keys.data[i]); }
  p->depth--;
  return rc;
}

static int value(jp *p, const char *end, jv *v) {
  ws(p, end);
  if (p->e >= end) return fail(p, "unexpected end");
  char c = *p->e;
  if (c == '{' || c == '[') return container(p, end, v, c == '{');
  if (c == '"') { v->type = JV_STR; return string(p, end, &v->str); }
  if (end - p->e >= 4 && !memcmp(p->e, "null", 4)) { v->type = JV_NULL; p->e += 4; return 0; }
  if (end - p->e >= 4 && !memcmp(p->e, "true", 4)) { v->type = JV_BOOL; v->num = 1; p->e += 4; return 0; }
  if (end - p->e >= 5 && !memcmp(p->e, "false", 5)) { v->type = JV_BOOL; p->e += 5; return 0; }
  if (c == '-' || (c >= '0' && c <= '9')) {
    char buf[64];
    size_t n = 0;
    while (p->e + n < end && n < sizeof buf - 1 && strchr("+-.eE0123456789", p->e[n])) n++;
    memcpy(buf, p->e, n);
    buf[n] = 0;
    char *stop;
    v->type = JV_NUM;
    v->num = strtod(buf, &stop);
    if (stop == buf) return fail(p, "bad number");
    p->e += stop - buf;
    return 0;
  }
  return fail(p, "unexpected character");
}

static void jv_clear(jv *v) {
  if (v->type == JV_STR) free(v->str);
  if (v->type == JV_ARR || v->type == JV_OBJ) {
    for (size_t i = 0; i < v->n; i++) {
      jv_clear(&v->items[i]);
      if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
  }
}

jv *jv_parse(const char *text, size_t len, char *err, size_t errlen) {
  jp p = {text, text, err, errlen, 0};
  err[0] = 0;
  jv *v = xcalloc(1, sizeof *v);
  const char *end = text + len;
  int rc = value(&p, end, v);
  if (rc == 0) { ws(&p, end); if (p.e != end) rc = fail(&p, "trailing characters"); }
  if (rc < 0) { jv_free(v); return NULL; }
  return v;
}

void jv_free(jv *v) {
  if (!v) return;
  jv_clear(v);
  free(v);
}

const jv *jv_get(const jv *v, const char *key) {
  if (!v || v->type != JV_OBJ) return NULL;
  for (size_t i = 0; i < v->n; i++) if (!strcmp(v->keys[i], key)) return &v->items[i];
  return NULL;
}

const jv *jv_at(const jv *v, size_t i) {
  return v && (v->type == JV_ARR || v->type == JV_OBJ) && i < v->n ? &v->items[i] : NULL;
}

double jv_num(const jv *v, double dflt) { return v && (v->type == JV_NUM || v->type == JV_BOOL) ? v->num : dflt; }
const char *jv_str(const jv *v, const char *dflt) { return v && v->type == JV_STR ? v->str : dflt; }
size_t jv_len(const jv *v) { return v && (v->type == JV_ARR || v->type == JV_OBJ) ? v->n : 0; }
