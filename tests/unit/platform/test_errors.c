/* Every kind of bad platform is refused with the right line and an explanation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim/platform.h"

#define HEAD "<?xml version='1.0'?>\n<platform version=\"4.1\">\n"  /* lines 1-2 */

static void expect_error(const char *xml, long line, const char *needle) {
  psim_err err;
  char *w = NULL;
  platform *p = plat_load_xml_mem("bad.xml", xml, strlen(xml), &w, &err);
  if (p) fail_msg("accepted:\n%s", xml);
  assert_null(w);
  assert_int_equal(err.code, 2);
  assert_string_equal(err.file, "bad.xml");
  if (err.line != line) fail_msg("line %ld, expected %ld: %s", err.line, line, err.msg);
  if (!strstr(err.msg, needle)) fail_msg("'%s' not in: %s", needle, err.msg);
}

static void test_malformed(void **s) {
  (void)s;
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\">\n</zone>\n</platform>\n", 5,
               "malformed XML");
  expect_error("", 1, "malformed XML");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\"><host id=\"a\" speed=\"1Gf\"/></zone>\n", 4, "malformed XML");
}

static void test_structure(void **s) {
  (void)s;
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<computer id=\"a\"/>\n</zone></platform>", 4,
               "unknown element <computer>");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host speed=\"1Gf\"/>\n</zone></platform>", 4,
               "needs the attribute 'id'");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\"/>\n</zone></platform>", 4,
               "needs the attribute 'speed'");
  expect_error(HEAD "<zone id=\"z\" routing=\"Fastest\">\n</zone></platform>", 3, "unknown routing");
  expect_error("<platform version=\"3\">\n</platform>", 1, "unsupported version");
  expect_error(HEAD "<host id=\"a\" speed=\"1Gf\"/>\n</platform>", 3, "inside a <zone>");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"/>\n</zone>\n"
               "<config><prop id=\"a\" value=\"b\"/></config>\n</platform>", 6, "must come before");
  expect_error(HEAD "</platform>", 0, "no zone");
}

static void test_values(void **s) {
  (void)s;
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gflops\"/>\n</zone></platform>", 4,
               "unknown speed unit");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<link id=\"l\" bandwidth=\"1GB\"/>\n</zone></platform>", 4,
               "bandwidth");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<link id=\"l\" bandwidth=\"1GBps\" latency=\"3 minutes\"/>\n"
               "</zone></platform>", 4, "time");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"WIFI\"/>\n"
               "</zone></platform>", 4, "unknown sharing policy");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\" core=\"0\"/>\n</zone></platform>", 4,
               "positive integer");
  /* SimGrid aborts on these; psim used to simulate them into a deadlock or a shorter run */
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"0f\"/>\n</zone></platform>", 4,
               "not a positive speed");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<link id=\"l\" bandwidth=\"-1GBps\"/>\n</zone></platform>", 4,
               "not a positive bandwidth");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<link id=\"l\" bandwidth=\"1GBps\" latency=\"-2us\"/>\n"
               "</zone></platform>", 4, "not a non-negative time");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<link id=\"l\" bandwidth=\"1e300YBps\"/>\n</zone></platform>", 4,
               "too large");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\">\n"
               "<prop id=\"smpi/os\" value=\"0:-1:0\"/>\n</host>\n</zone></platform>", 5, "non-negative");
}

static void test_duplicates(void **s) {
  (void)s;
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"a\" speed=\"1Gf\"/>\n"
               "</zone></platform>", 5, "already used");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<link id=\"l\" bandwidth=\"1GBps\"/>\n"
               "<link id=\"l\" bandwidth=\"1GBps\"/>\n</zone></platform>", 5, "already used");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n"
               "<link id=\"l\" bandwidth=\"1GBps\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"
               "<route src=\"b\" dst=\"a\"><link_ctn id=\"l\"/></route>\n</zone></platform>", 7, "declared twice");
}

static void test_routes(void **s) {
  (void)s;
  const char *zone = HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n"
                          "<link id=\"l\" bandwidth=\"1GBps\" sharing_policy=\"SPLITDUPLEX\"/>\n";
  char xml[2048];
  snprintf(xml, sizeof xml, "%s<route src=\"a\" dst=\"c\">\n<link_ctn id=\"l\" direction=\"UP\"/></route>\n"
           "</zone></platform>", zone);
  expect_error(xml, 6, "unknown host or router");
  snprintf(xml, sizeof xml, "%s<route src=\"a\" dst=\"b\">\n<link_ctn id=\"m\"/></route>\n</zone></platform>", zone);
  expect_error(xml, 7, "unknown link");
  snprintf(xml, sizeof xml, "%s<route src=\"a\" dst=\"b\">\n<link_ctn id=\"l\"/></route>\n</zone></platform>", zone);
  expect_error(xml, 7, "SPLITDUPLEX");
  snprintf(xml, sizeof xml, "%s<route src=\"a\" dst=\"b\" symmetrical=\"maybe\">\n</route>\n</zone></platform>", zone);
  expect_error(xml, 6, "expected YES or NO");
  snprintf(xml, sizeof xml, "%s<zoneRoute src=\"a\" dst=\"b\" gw_src=\"a\" gw_dst=\"b\">\n</zoneRoute>\n"
           "</zone></platform>", zone);
  expect_error(xml, 6, "unknown zone");
}

/* errors about an element are reported at the line where its start tag begins */
static void test_clusters(void **s) {
  (void)s;
  expect_error(HEAD "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-x\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n"
               "</platform>", 3, "bad radical");
  expect_error(HEAD "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-7\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
               " topology=\"RING\"/>\n</platform>", 3, "unknown topology");
  expect_error(HEAD "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-7\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
               " topology=\"TORUS\" topo_parameters=\"3,3\"/>\n</platform>", 3, "bad TORUS topo_parameters");
  expect_error(HEAD "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-15\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
               " topology=\"FAT_TREE\" topo_parameters=\"2;4,4;1,2\"/>\n</platform>", 3, "bad FAT_TREE");
  /* too many switches: said as such, not as a malformed description (4 hosts, 16.8 M switches) */
  expect_error(HEAD "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
               " topology=\"FAT_TREE\" topo_parameters=\"2;2,2;4096,4096;1,1\"/>\n</platform>", 3,
               "describe more than 10,000,000 hosts and switches");
  expect_error(HEAD "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-15\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
               " topology=\"DRAGONFLY\" topo_parameters=\"2,1;2,1;2,1\"/>\n</platform>", 3, "bad DRAGONFLY");
  expect_error(HEAD "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-15\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
               " topology=\"TORUS\"/>\n</platform>", 3, "needs a topo_parameters");
  expect_error(HEAD "<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"\n"
               " sharing_policy=\"LOOSE\"/>\n</platform>", 3, "unknown sharing policy");
  /* a SPLITDUPLEX link name too long for its _UP/_DOWN suffix is refused, never cut short */
  char xml[2048], id[601];
  memset(id, 'x', 600);
  id[600] = 0;
  snprintf(xml, sizeof xml, HEAD "<cluster id=\"%s\" prefix=\"n\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\"\n"
           " bw=\"1GBps\" lat=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n</platform>", id);
  expect_error(xml, 3, "is too long");
}

static void test_no_route_at_query(void **s) {
  (void)s;
  const char *xml = HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n"
                         "</zone></platform>";
  psim_err err;
  platform *p = plat_load_xml_mem("ok.xml", xml, strlen(xml), NULL, &err);
  assert_non_null(p);
  int buf[4];
  assert_int_equal(plat_route(p, 0, 1, buf, 4, &err), -1);
  assert_non_null(strstr(err.msg, "no route from 'a' to 'b'"));
  plat_free(p);
}

/* A host runs at its power state (pstate, the first by default): psim took the first always.
 * Time-varying profiles are refused: psim took the resource as constant. */
static void test_pstates_profiles(void **s) {
  (void)s;
  const char *xml = HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"100Mf, 50Mf,20Mf\" pstate=\"1\"/>"
                         "<host id=\"b\" speed=\"100Mf,50Mf\"/>\n</zone></platform>";
  psim_err err;
  platform *p = plat_load_xml_mem("ok.xml", xml, strlen(xml), NULL, &err);
  assert_non_null(p);
  assert_true(plat_host_at(p, 0)->speed == 50e6);
  assert_true(plat_host_at(p, 1)->speed == 100e6);
  plat_free(p);
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"100Mf,50Mf\" pstate=\"2\"/>\n</zone></platform>",
               4, "has no power state 2");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\" pstate=\"x\"/>\n</zone></platform>",
               4, "expected a power state number");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\" speed_file=\"a.profile\"/>\n</zone></platform>",
               4, "time-varying profiles are not modelled");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"/>\n"
                    "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\" state_file=\"l.profile\"/>\n</zone></platform>",
               5, "<link state_file=\"l.profile\">");
}

/* Bypass routes: one way, at least one link, one per pair, in the zone kind SimGrid's DTD wants. */
static void test_bypass(void **s) {
  (void)s;
#define ZH "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n" \
           "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
  expect_error(HEAD ZH "<bypassRoute src=\"a\" dst=\"b\">\n</bypassRoute>\n</zone></platform>", 7,
               "bypass route from 'a' to 'b' without links");
  expect_error(HEAD ZH "<bypassRoute src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></bypassRoute>\n"
                       "<bypassRoute src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></bypassRoute>\n</zone></platform>",
               7, "already exists in zone 'z'");
  expect_error(HEAD ZH "<bypassRoute src=\"a\" dst=\"c\"><link_ctn id=\"l\"/></bypassRoute>\n</zone></platform>", 6,
               "<bypassRoute dst=\"c\">: unknown node");
  expect_error(HEAD ZH "<bypassRoute src=\"a\" dst=\"b\" symmetrical=\"YES\"><link_ctn id=\"l\"/></bypassRoute>\n"
                       "</zone></platform>", 6, "a bypass route is one way");
  expect_error(HEAD ZH "<bypassZoneRoute src=\"a\" dst=\"b\" gw_src=\"a\" gw_dst=\"b\"><link_ctn id=\"l\"/>"
                       "</bypassZoneRoute>\n</zone></platform>", 6, "expected a zone of zones");
  expect_error(HEAD "<zone id=\"r\" routing=\"Full\">\n<zone id=\"z\" routing=\"Full\"><host id=\"a\" speed=\"1Gf\"/>"
                    "</zone>\n<link id=\"l\" bandwidth=\"1GBps\"/>\n<bypassRoute src=\"a\" dst=\"a\">"
                    "<link_ctn id=\"l\"/></bypassRoute>\n</zone></platform>", 6, "expected a zone of hosts and routers");
#undef ZH
}

/* A Dijkstra zone of zones whose path enters a middle zone by one gateway and leaves it by
 * another: SimGrid 3.32 stops on a null gateway; psim says which. */
static void test_dijkstra_gateways(void **s) {
  (void)s;
#define Z(id, h, r) "<zone id=\"" id "\" routing=\"Full\"><host id=\"" h "\" speed=\"1Gf\"/><router id=\"" r "\"/>" \
                    "<link id=\"l" h "\" bandwidth=\"1GBps\"/><route src=\"" h "\" dst=\"" r "\"><link_ctn id=\"l" h "\"/></route></zone>\n"
  const char *xml = HEAD "<zone id=\"root\" routing=\"Dijkstra\">\n" Z("za", "a", "ra") Z("zb", "b", "rb")
      "<zone id=\"zc\" routing=\"Full\"><host id=\"c\" speed=\"1Gf\"/><router id=\"rc\"/></zone>\n"
      "<link id=\"ab\" bandwidth=\"1GBps\"/><link id=\"bc\" bandwidth=\"1GBps\"/>\n"
      "<zoneRoute src=\"za\" dst=\"zb\" gw_src=\"ra\" gw_dst=\"rb\"><link_ctn id=\"ab\"/></zoneRoute>\n"
      "<zoneRoute src=\"zb\" dst=\"zc\" gw_src=\"b\" gw_dst=\"rc\"><link_ctn id=\"bc\"/></zoneRoute>\n"
      "</zone></platform>";
#undef Z
  psim_err err;
  platform *p = plat_load_xml_mem("g.xml", xml, strlen(xml), NULL, &err);
  assert_non_null(p);
  int buf[16];
  assert_int_equal(plat_route(p, plat_host_find(p, "a"), plat_host_find(p, "c"), buf, 16, &err), -1);
  assert_non_null(strstr(err.msg, "the route from 'za' to 'zc' enters a zone by 'rb' and leaves it by 'b'"));
  assert_true(plat_route(p, plat_host_find(p, "a"), plat_host_find(p, "b"), buf, 16, &err) > 0);
  plat_free(p);
}

/* Vivaldi zones: coordinates are three numbers; peers only in Vivaldi zones; a zone between
 * Vivaldi vertices needs coordinates (SimGrid stops there too). */
static void test_vivaldi(void **s) {
  (void)s;
  expect_error(HEAD "<zone id=\"v\" routing=\"Vivaldi\">\n<host id=\"a\" speed=\"1Gf\" coordinates=\"1 2\"/>\n"
                    "</zone></platform>", 4, "expected three numbers separated by spaces");
  expect_error(HEAD "<zone id=\"v\" routing=\"Vivaldi\">\n<router id=\"r\" coordinates=\"1 2 x\"/>\n"
                    "</zone></platform>", 4, "<router coordinates=\"1 2 x\">");
  expect_error(HEAD "<zone id=\"v\" routing=\"Full\">\n<peer id=\"p\" speed=\"1Gf\" bw_in=\"1GBps\" bw_out=\"1GBps\"/>\n"
                    "</zone></platform>", 4, "only allowed in a zone with routing=\"Vivaldi\"");
  expect_error(HEAD "<zone id=\"v\" routing=\"Vivaldi\">\n<peer id=\"p\" speed=\"1Gf\" bw_in=\"0\" bw_out=\"1GBps\"/>\n"
                    "</zone></platform>", 4, "bw_in");
  const char *xml = HEAD "<zone id=\"v\" routing=\"Vivaldi\">\n<host id=\"a\" speed=\"1Gf\" coordinates=\"3 4 1\"/>"
                         "<host id=\"b\" speed=\"1Gf\"/><host id=\"c\" speed=\"1Gf\" coordinates=\"0 0 0.5\"/>\n</zone></platform>";
  psim_err err;
  platform *p = plat_load_xml_mem("v.xml", xml, strlen(xml), NULL, &err);
  assert_non_null(p);
  double extra;
  assert_int_equal(plat_route_lat(p, 0, 2, NULL, 0, &extra, &err), 0);
  assert_float_equal(extra, (5 + 1 + 0.5) / 1000.0, 1e-15);   /* sqrt(3^2 + 4^2) + |1| + |0.5| ms */
  assert_int_equal(plat_route_lat(p, 0, 1, NULL, 0, &extra, &err), -1);
  assert_non_null(strstr(err.msg, "host 'b' of Vivaldi zone 'v' has no coordinates"));
  plat_free(p);
}

/* Disks: accepted inside a host (no I/O goes through the simulator), checked. */
static void test_disks(void **s) {
  (void)s;
  const char *xml = HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"><prop id=\"ram\" value=\"1B\"/>"
                         "<disk id=\"d\" read_bw=\"100MBps\" write_bw=\"40MBps\"><prop id=\"size\" value=\"1GiB\"/></disk>"
                         "</host>\n</zone></platform>";
  psim_err err;
  platform *p = plat_load_xml_mem("d.xml", xml, strlen(xml), NULL, &err);
  assert_non_null(p);
  assert_int_equal(plat_nhosts(p), 1);
  plat_free(p);
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<disk read_bw=\"1MBps\" write_bw=\"1MBps\"/>\n</zone></platform>", 4,
               "<disk> must be inside a <host>");
  expect_error(HEAD "<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gf\"><disk read_bw=\"fast\" write_bw=\"1MBps\"/>"
                    "</host>\n</zone></platform>", 4, "read_bw");
}

static void test_missing_file(void **s) {
  (void)s;
  psim_err err;
  assert_null(plat_load_xml("/nonexistent/p.xml", NULL, &err));
  assert_int_equal(err.code, 2);
  assert_string_equal(err.file, "/nonexistent/p.xml");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bypass),
      cmocka_unit_test(test_vivaldi),
      cmocka_unit_test(test_dijkstra_gateways),
      cmocka_unit_test(test_disks),
    cmocka_unit_test(test_malformed), cmocka_unit_test(test_structure), cmocka_unit_test(test_values),
    cmocka_unit_test(test_duplicates), cmocka_unit_test(test_routes), cmocka_unit_test(test_clusters),
    cmocka_unit_test(test_no_route_at_query), cmocka_unit_test(test_missing_file),
    cmocka_unit_test(test_pstates_profiles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
