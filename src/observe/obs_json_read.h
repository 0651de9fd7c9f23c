/* A small JSON reader for the report (private to src/observe/): the whole document as a tree. */
#ifndef PSIM_OBS_JSON_READ_H
#define PSIM_OBS_JSON_READ_H

#include <stddef.h>

typedef enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_type;

typedef struct jv {
  jv_type type;
  double num;            /* JV_NUM, JV_BOOL (0/1) */
  char *str;             /* JV_STR (decoded, NUL-terminated) */
  struct jv *items;      /* JV_ARR, JV_OBJ: n values */
  char **keys;           /* JV_OBJ: n keys */
  size_t n;
} jv;

/* Parses text[0..len). Returns NULL with a message (byte offset included) in err. */
jv *jv_parse(const char *text, size_t len, char *err, size_t errlen);
void jv_free(jv *v);
/* Member of an object (NULL when absent or v is not an object). */
const jv *jv_get(const jv *v, const char *key);
/* Item i of an array (NULL when out of range or not an array). */
const jv *jv_at(const jv *v, size_t i);
/* Number value, or dflt when v is not a number. */
double jv_num(const jv *v, double dflt);
const char *jv_str(const jv *v, const char *dflt);
size_t jv_len(const jv *v);   /* items of an array or object, else 0 */

#endif
