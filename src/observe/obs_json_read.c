/* psim's JSON documents as a tree (jv_*, psim/observe.h), read by Jansson: the report, psim
 * sweep's results and its workers' outputs read back what psim wrote. Jansson parses (RFC 8259, UTF-8
 * checked, nesting bounded); its tree is copied into jv's, whose arrays the callers index
 * directly, and object members keep their order in the file. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/observe.h"
#include "psim/util.h"

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

/* Copies Jansson's value j into v (recursively: Jansson has bounded the depth). */
static void copy(const json_t *j, jv *v) {
  memset(v, 0, sizeof *v);
  switch (json_typeof(j)) {
  case JSON_OBJECT: {
    v->type = JV_OBJ;
    v->n = json_object_size(j);
    v->items = xcalloc(v->n ? v->n : 1, sizeof *v->items);
    v->keys = xcalloc(v->n ? v->n : 1, sizeof *v->keys);
    size_t i = 0;
    const char *key;
    json_t *val;
    /* Jansson iterates an object in the order its members were read */
    json_object_foreach((json_t *)j, key, val) {
      v->keys[i] = xstrdup(key);
      copy(val, &v->items[i++]);
    }
    break;
  }
  case JSON_ARRAY:
    v->type = JV_ARR;
    v->n = json_array_size(j);
    v->items = xcalloc(v->n ? v->n : 1, sizeof *v->items);
    for (size_t i = 0; i < v->n; i++) copy(json_array_get(j, i), &v->items[i]);
    break;
  case JSON_STRING: v->type = JV_STR; v->str = xstrdup(json_string_value(j)); break;
  case JSON_INTEGER: v->type = JV_NUM; v->num = (double)json_integer_value(j); break;
  case JSON_REAL: v->type = JV_NUM; v->num = json_real_value(j); break;
  case JSON_TRUE: v->type = JV_BOOL; v->num = 1; break;
  case JSON_FALSE: v->type = JV_BOOL; break;
  case JSON_NULL: v->type = JV_NULL; break;
  }
}

jv *jv_parse(const char *text, size_t len, char *err, size_t errlen) {
  json_error_t e;
  err[0] = 0;
  /* any value at the top; every number as a double (no integer overflow) */
  json_t *j = json_loadb(text, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &e);
  if (!j) {
    snprintf(err, errlen, "JSON: %s at line %d, column %d (byte %d)", e.text, e.line, e.column, e.position);
    return NULL;
  }
  jv *v = xmalloc(sizeof *v);
  copy(j, v);
  json_decref(j);
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
