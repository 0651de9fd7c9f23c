// Writes what SimGrid itself computes for a platform file, in the format of
// tests/data/platforms/expected/ (see its README): LINK name bandwidth latency sharing (0 =
// FATPIPE, 1 = SHARED), HOST name speed cores, and ROUTE src dst links... then LATENCY src dst
// seconds for every ordered pair of hosts (s4u's Host::route_to after Engine::seal_platform;
// the latency includes what is not a link's, such as a Vivaldi zone's). Needs libsimgrid-dev:
//
//   g++ -O1 -o /tmp/simgrid_routes scripts/simgrid_routes.cpp -lsimgrid
//   /tmp/simgrid_routes PLATFORM.xml 2>/dev/null | grep -v '^LINK __loopback__' > expected/NAME.txt
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
  simgrid::s4u::Engine e(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml\n", argv[0]);
    return 2;
  }
  e.load_platform(argv[1]);
  e.seal_platform();
  auto links = e.get_all_links();
  std::sort(links.begin(), links.end(), [](const auto* a, const auto* b) { return a->get_name() < b->get_name(); });
  for (const auto* l : links)
    std::printf("LINK %s %.17g %.17g %d\n", l->get_cname(), l->get_bandwidth(), l->get_latency(),
                l->get_sharing_policy() == simgrid::s4u::Link::SharingPolicy::FATPIPE ? 0 : 1);
  auto hosts = e.get_all_hosts();
  for (const auto* h : hosts)
    std::printf("HOST %s %.17g %d\n", h->get_cname(), h->get_speed(), h->get_core_count());
  for (const auto* a : hosts)
    for (auto* b : hosts) {
      std::vector<simgrid::s4u::Link*> route;
      double latency = 0;
      a->route_to(b, route, &latency);
      std::printf("ROUTE %s %s", a->get_cname(), b->get_cname());
      for (const auto* l : route)
        std::printf(" %s", l->get_cname());
      std::printf("\nLATENCY %s %s %.17g\n", a->get_cname(), b->get_cname(), latency);
    }
  return 0;
}
