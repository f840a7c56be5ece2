// Dumps as LAMMPS writes them: positions between rebuilds, the xyz layout, and every field a
// NetCDF dump is asked for. The LAMMPS references in tests/md/data come from make_reference.sh.
#include <gtest/gtest.h>
#include <netcdf.h>

#include <array>
#include <cmath>
#include <cstdio>

#include "md_test_support.hpp"

namespace tessera::md::test {
namespace {

struct DumpAtom {
  std::array<double, 3> x{};
  std::array<int, 3> image{};
  std::array<double, 3> f{};
};

// Frames of a custom dump with the fields "id type x y z ix iy iz [fx fy fz]", by step and id.
std::map<long, std::map<long, DumpAtom>> read_custom_dump(const std::string& path, bool forces,
                                                          double* box_length) {
  std::map<long, std::map<long, DumpAtom>> frames;
  std::istringstream in(read_text(path));
  std::string line;
  long step = -1, atoms = 0;
  while (std::getline(in, line)) {
    if (line == "ITEM: TIMESTEP") {
      in >> step;
    } else if (line == "ITEM: NUMBER OF ATOMS") {
      in >> atoms;
    } else if (line.rfind("ITEM: BOX BOUNDS", 0) == 0) {
      double lo = 0, hi = 0;
      in >> lo >> hi;
      *box_length = hi - lo;
    } else if (line.rfind("ITEM: ATOMS", 0) == 0) {
      for (long k = 0; k < atoms; ++k) {
        long id = 0;
        int type = 0;
        DumpAtom a;
        in >> id >> type >> a.x[0] >> a.x[1] >> a.x[2] >> a.image[0] >> a.image[1] >> a.image[2];
        if (forces) in >> a.f[0] >> a.f[1] >> a.f[2];
        frames[step][id] = a;
      }
    }
  }
  return frames;
}

// Before the fix md_ipu wrapped every dumped atom into the box: at step 10, 68 of LAMMPS's
// 500 atoms are outside it, with the image flags of step 0.
TEST(Dump, PositionsBetweenRebuildsAreLammpssUnwrappedOnes) {
  const std::string path = ::testing::TempDir() + "tessera_dump_positions.dump";
  Session s(host_target(2), 2);
  s.input.define_variable("dumpfile", {path});
  s.input.run_file(data_dir() + "/in.dump_positions");
  double length = 0, ours_length = 0;
  const auto lammps = read_custom_dump(data_dir() + "/dump_positions.lammps.dump", false, &length);
  const auto ours = read_custom_dump(path, false, &ours_length);
  ASSERT_EQ(lammps.size(), 2u);
  ASSERT_EQ(ours.size(), lammps.size());
  EXPECT_EQ(ours_length, length);
  int outside = 0;
  for (const auto& [step, atoms] : lammps) {
    ASSERT_EQ(ours.at(step).size(), atoms.size()) << "step " << step;
    for (const auto& [id, a] : atoms) {
      const DumpAtom& o = ours.at(step).at(id);
      bool out = false;
      for (std::size_t d = 0; d < 3; ++d) {
        EXPECT_NEAR(o.x[d], a.x[d], 1e-9 * length) << "atom " << id << " at step " << step;
        EXPECT_EQ(o.image[d], a.image[d]) << "atom " << id << " at step " << step;
        out = out || a.x[d] < 0 || a.x[d] >= length;
      }
      outside += out ? 1 : 0;
    }
  }
  EXPECT_GE(outside, 20) << "the reference must have atoms outside the box for this to test";
  std::remove(path.c_str());
}

// LAMMPS's xyz dump: the count, then "Atoms. Timestep: N" with no leading space.
TEST(Dump, XyzCommentLineIsLammpss) {
  const std::string path = ::testing::TempDir() + "tessera_dump.xyz";
  Session s(host_target(1), 1);
  s.input.run_script(
      "lattice fcc 0.8442\nregion box block 0 3 0 3 0 3\ncreate_box 1 box\ncreate_atoms 1 box\n"
      "mass 1 1.0\npair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\nfix 1 all nve\n"
      "dump 1 all xyz 5 " +
          path + "\nrun 5\n",
      "xyz");
  std::istringstream in(read_text(path));
  std::string count, comment;
  std::getline(in, count);
  std::getline(in, comment);
  EXPECT_EQ(count, "108");
  EXPECT_EQ(comment, "Atoms. Timestep: 0");
  std::remove(path.c_str());
}

// Every field a NetCDF dump is given is written under LAMMPS's name for it (fx fy fz were
// accepted and silently dropped before): forces, unwrapped coordinates and image flags equal
// the text dump's at every frame, to float precision.
TEST(Dump, NetcdfWritesForcesImagesAndUnwrappedCoordinates) {
  const std::string nc = ::testing::TempDir() + "tessera_dump_fields.nc";
  const std::string text = ::testing::TempDir() + "tessera_dump_fields.txt";
  Session s(host_target(2), 2);
  s.input.run_script(
      "units metal\nlattice fcc 5.26\nregion box block 0 3 0 3 0 3\ncreate_box 1 box\n"
      "create_atoms 1 box\nmass 1 39.95\nvelocity all create 300 1234 loop geom\n"
      "pair_style lj/cut 8.0\npair_coeff 1 1 0.0104 3.4\nfix 1 all nve\n"
      "dump n all netcdf 20 " +
          nc +
          " id type x y z fx fy fz xu yu zu ix iy iz\n"
          "dump t all custom 20 " +
          text +
          " id type xu yu zu ix iy iz fx fy fz\n"
          "dump_modify t sort id format float %.17g\nrun 60\n",
      "netcdf fields");
  double length = 0;
  const auto frames = read_custom_dump(text, true, &length);  // xu yu zu in the x columns
  ASSERT_EQ(frames.size(), 4u);
  int ncid = -1, forces = -1, unwrapped = -1, image[3] = {-1, -1, -1}, id = -1;
  ASSERT_EQ(nc_open(nc.c_str(), NC_NOWRITE, &ncid), NC_NOERR);
  ASSERT_EQ(nc_inq_varid(ncid, "forces", &forces), NC_NOERR);
  ASSERT_EQ(nc_inq_varid(ncid, "unwrapped_coordinates", &unwrapped), NC_NOERR);
  ASSERT_EQ(nc_inq_varid(ncid, "id", &id), NC_NOERR);
  for (int d = 0; d < 3; ++d) {
    const std::string name = std::string("i") + static_cast<char>('x' + d);
    ASSERT_EQ(nc_inq_varid(ncid, name.c_str(), &image[d]), NC_NOERR) << name;
  }
  char units[64] = {};
  ASSERT_EQ(nc_get_att_text(ncid, forces, "units", units), NC_NOERR);
  EXPECT_STREQ(units, "eV/angstrom");
  const std::size_t n = 108;
  std::size_t frame = 0;
  double largest_force = 0;
  for (const auto& [step, atoms] : frames) {
    std::vector<float> f(3 * n), xu(3 * n);
    std::vector<int> ids(n),
        img[3] = {std::vector<int>(n), std::vector<int>(n), std::vector<int>(n)};
    const std::size_t at[3] = {frame, 0, 0}, vec[3] = {1, n, 3}, one[2] = {1, n};
    ASSERT_EQ(nc_get_vara_float(ncid, forces, at, vec, f.data()), NC_NOERR);
    ASSERT_EQ(nc_get_vara_float(ncid, unwrapped, at, vec, xu.data()), NC_NOERR);
    ASSERT_EQ(nc_get_vara_int(ncid, id, at, one, ids.data()), NC_NOERR);
    for (int d = 0; d < 3; ++d)
      ASSERT_EQ(nc_get_vara_int(ncid, image[d], at, one, img[d].data()), NC_NOERR);
    for (std::size_t i = 0; i < n; ++i) {
      const DumpAtom& a = atoms.at(ids[i]);
      for (std::size_t d = 0; d < 3; ++d) {
        EXPECT_EQ(f[3 * i + d], static_cast<float>(a.f[d])) << "atom " << ids[i];
        EXPECT_EQ(xu[3 * i + d], static_cast<float>(a.x[d])) << "atom " << ids[i];
        EXPECT_EQ(img[d][i], a.image[d]) << "atom " << ids[i];
        largest_force = std::max(largest_force, std::fabs(a.f[d]));
      }
    }
    ++frame;
  }
  EXPECT_GT(largest_force, 1e-3) << "the forces must not be all zero for this to test";
  nc_close(ncid);
  std::remove(nc.c_str());
  std::remove(text.c_str());
}

}  // namespace
}  // namespace tessera::md::test
