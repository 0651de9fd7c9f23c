/* The report's zoomable timeline: a canvas drawn by a small inline script
 * (obs_report_timeline.js, embedded at build time), from compact data written here from the
 * result document's "timeline" and "critical_path" sections:
 *   - every action of every rank, cut into pieces of one state, when the document has them
 *     (small runs), as integers in a quantum of makespan / 1e9: gap since the previous
 *     piece's end, duration, kind, line delta, state; the file of each rank;
 *   - always, each rank's dominant state per time bin ("rank_states"), which the script
 *     averages into blocks of ranks: 16,384 ranks are 3.3 MB of it;
 *   - the critical path's segments (the band above the rows);
 *   - markers: psim lb's balancing steps, the host events of dynamic runs.
 * Rounding to 1e-9 of the makespan cannot be seen at any zoom the script allows (1e-7). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obs_report_draw.h"
#include "psim/observe.h"

extern const char obs_report_timeline_js[];

enum { MAX_CP = 200000 };

static long long quant(double t, double q) { return isfinite(t) ? llround(t / q) : 0; }

/* Per rank [start, end, kind, line, state, ...] as "gap,dur,kind,dline,state," (see above). */
static void write_acts(FILE *f, const jv *ranks, double q) {
  fputs(",\"acts\":[", f);
  for (size_t r = 0; r < jv_len(ranks); r++) {
    const jv *a = jv_at(ranks, r);
    fputs(r ? ",\"" : "\"", f);
    long long prev = 0, line = 0;
    for (size_t i = 0; i + 4 < jv_len(a); i += 5) {
      long long s = quant(jv_num(jv_at(a, i), 0), q), e = quant(jv_num(jv_at(a, i + 1), 0), q);
      long long l = (long long)jv_num(jv_at(a, i + 3), 0);
      if (e < s) e = s;
      fprintf(f, "%s%lld,%lld,%d,%lld,%d", i ? "," : "", s - prev, e - s, (int)jv_num(jv_at(a, i + 2), 0), l - line,
              (int)jv_num(jv_at(a, i + 4), OBS_ST_WAIT));
      prev = e;
      line = l;
    }
    fputc('"', f);
  }
  fputc(']', f);
}

static const char *const CP_NAMES[5] = {"compute", "transfer", "wait", "overhead", "pe_wait"};
static const int CP_STATE[5] = {OBS_ST_COMPUTE, OBS_ST_SEND, OBS_ST_WAIT, OBS_ST_RECV, OBS_ST_PE};

static void write_cp(FILE *f, const jv *segs, double q) {
  fputs(",\"cpNames\":[\"compute\",\"transfer\",\"wait\",\"overhead\",\"waiting for its PE\"],\"cpState\":[", f);
  for (int i = 0; i < 5; i++) fprintf(f, "%s%d", i ? "," : "", CP_STATE[i]);
  fputs("],\"cp\":[", f);
  for (size_t i = 0; i < jv_len(segs) && i < MAX_CP; i++) {
    const jv *s = jv_at(segs, i);
    const char *w = jv_str(jv_at(s, 4), "wait");
    int k = 2;
    for (int j = 0; j < 5; j++) if (!strcmp(w, CP_NAMES[j])) k = j;
    fprintf(f, "%s%lld,%lld,%d,%d", i ? "," : "", quant(jv_num(jv_at(s, 0), 0), q), quant(jv_num(jv_at(s, 1), 0), q),
            (int)jv_num(jv_at(s, 2), 0), k);
  }
  fputc(']', f);
}

static void write_events(FILE *f, const jv *doc) {
  fputs(",\"events\":[", f);
  int n = 0;
  const jv *steps = jv_get(doc, "steps");
  for (size_t i = 0; i < jv_len(steps); i++)
    fprintf(f, "%s[%.9g,\"balancing step %zu\",\"%s\"]", n++ ? "," : "", jv_num(jv_get(jv_at(steps, i), "time"), 0), i + 1,
            obs_state_colour(OBS_ST_LB));
  const jv *he = jv_get(doc, "host_events");
  for (size_t i = 0; i < jv_len(he); i++) {
    const jv *e = jv_at(he, i);
    fprintf(f, "%s[%.9g,", n++ ? "," : "", jv_num(jv_get(e, "date"), 0));
    char b[96];
    snprintf(b, sizeof b, "%s %zu host(s)", jv_str(jv_get(e, "action"), "?"), jv_len(jv_get(e, "hosts")));
    obs_json_string(f, b);
    fputs(strcmp(jv_str(jv_get(e, "action"), ""), "add") ? ",\"#b2182b\"]" : ",\"#1b7837\"]", f);
  }
  fputc(']', f);
}

/* The fixed legend (HTML), every state of the report or only those listed in mask (bits). */
void obs_report_legend(FILE *f, unsigned mask) {
  fputs("<div class=\"legend\">", f);
  for (int s = 0; s < OBS_NSTATES; s++)
    if (mask & (1u << s))
      fprintf(f, "<span class=\"key\"><i style=\"background:%s\"></i>%s</span>", obs_state_colour(s), obs_state_label(s));
  fputs("</div>\n", f);
}

void obs_report_timeline(FILE *f, const jv *doc) {
  int lb = jv_get(doc, "pes") != NULL;
  fputs("<section id=\"timeline\"><h2>Timeline</h2>\n", f);
  const jv *tl = jv_get(doc, "timeline");
  if (!tl || !jv_get(tl, "rank_states")) {
    fputs("<p class=\"note\">No timeline in this document: write it with <code>--report FILE.html</code> "
          "or <code>--json FILE --timeline</code>.</p></section>\n", f);
    return;
  }
  double T = jv_num(jv_get(tl, "end"), 0), q = T > 0 ? T / 1e9 : 1e-9;
  const jv *rs = jv_get(tl, "rank_states"), *acts = jv_get(tl, "actions");
  size_t np = jv_len(rs);
  fprintf(f, "<p>What each %s does over time: %s. Rows are %s; a row of a block shows, per time bin, the share of "
             "its %ss in each state; click a block to expand it, shift-click to collapse all. Wheel: zoom around "
             "the pointer; drag: pan; hover: the action, its duration and <code>file:line</code>. The band on top is "
             "the critical path%s.</p>\n",
          lb ? "VP" : "rank", acts ? "every action" : "the state each rank spent most of each time bin in (the "
                                                      "document has too many actions to keep them all)",
          np > 64 ? "blocks of consecutive ranks" : "ranks", lb ? "VP" : "rank",
          jv_len(jv_get(doc, "steps")) || jv_len(jv_get(doc, "host_events")) ? "; dashed lines are balancing steps "
                                                                               "and host events" : "");
  /* the legend above the rows it explains: below them it fell off the first screen as soon as
   * a run had a few more ranks (issue 36) */
  fputs("<figure class=\"chart\" id=\"fig-timeline\" data-chart=\"timeline\">\n", f);
  obs_report_legend(f, lb ? 0xFFu : 0x3Fu);
  fputs("<div class=\"tools\"><button id=\"tl-in\">zoom in</button> <button id=\"tl-out\">zoom out</button> "
        "<button id=\"tl-reset\">reset</button> <span id=\"timeline-range\"></span></div>\n"
        "<div class=\"axis-label y\">", f);
  fputs(lb ? "VPs (or blocks of VPs)" : "ranks (or blocks of ranks)", f);
  fputs("</div>\n<div style=\"position:relative\"><canvas id=\"timeline-canvas\" width=\"960\" height=\"200\"></canvas>"
        "<div id=\"timeline-tip\" class=\"tip\"></div></div>\n<div class=\"axis-label x\">time (simulated seconds)</div>\n", f);
  fputs("</figure>\n<script type=\"application/json\" id=\"psim-data\">{", f);
  fprintf(f, "\"T\":%.9g,\"q\":%.9g,\"np\":%zu,\"nb\":%.0f,\"who\":\"%s\",\"colours\":[", T, q, np,
          jv_num(jv_get(tl, "bins"), 0), lb ? "VP" : "rank");
  for (int s = 0; s < OBS_NSTATES; s++) fprintf(f, "%s\"%s\"", s ? "," : "", obs_state_colour(s));
  fputs("],\"labels\":[", f);
  for (int s = 0; s < OBS_NSTATES; s++) fprintf(f, "%s\"%s\"", s ? "," : "", obs_state_label(s));
  fputs("],\"kinds\":[", f);
  const jv *kinds = jv_get(tl, "kinds"), *files = jv_get(tl, "files");
  for (size_t i = 0; i < jv_len(kinds); i++) { if (i) fputc(',', f); obs_json_string(f, jv_str(jv_at(kinds, i), "?")); }
  fputs("],\"files\":[", f);
  for (size_t i = 0; i < jv_len(files); i++) {
    if (i) fputc(',', f);
    const jv *x = jv_at(files, i);
    if (x && x->type == JV_STR) obs_json_string(f, x->str); else fputs("null", f);
  }
  fputc(']', f);
  if (acts) write_acts(f, acts, q);
  else fputs(",\"acts\":null", f);
  fputs(",\"rs\":[", f);
  for (size_t r = 0; r < np; r++) { if (r) fputs(r % 64 ? "," : ",\n", f); obs_json_string(f, jv_str(jv_at(rs, r), "")); }
  fputc(']', f);
  write_cp(f, jv_get(jv_get(doc, "critical_path"), "segments"), q);
  write_events(f, doc);
  fprintf(f, "}</script>\n<script>%s</script>\n</section>\n", obs_report_timeline_js);
}
