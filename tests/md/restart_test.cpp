// Restart files are not trusted (issue 21): a CRC-32 over the whole file refuses every flipped
// bit and overwritten byte with a message, and every header field and atom record is checked
// as the command that set it checks its arguments, before the simulation changes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "md_test_support.hpp"
#include "tessera/core/error.hpp"
#include "tessera/md/data_file.hpp"

namespace tessera::md::test {
namespace {

const char* const kSystem = R"(units lj
lattice fcc 0.8442
region box block 0 3 0 3 0 3
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.0 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify every 2 delay 0 check yes
fix 1 all nvt temp 1.0 1.0 0.5
fix 2 all langevin 1.0 1.0 2.0 777
run 20
)";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A real restart file of a short run (108 atoms, nvt and langevin).
const std::string& good_restart() {
  static const std::string bytes = [] {
    const std::string path = ::testing::TempDir() + "tessera_restart_good.restart";
    Session a(host_target(2), 1);
    a.input.run_script(kSystem, "system");
    write_restart(a.sim(), path);
    std::string b = slurp(path);
    std::remove(path.c_str());
    return b;
  }();
  return bytes;
}

// The file's parts, to edit one and write it again with a valid checksum.
struct Parts {
  std::string first_line;
  nlohmann::json header;
  std::string atoms;
};

Parts split(const std::string& file) {
  Parts p;
  std::size_t at = file.find('\n') + 1;
  p.first_line = file.substr(0, at);
  const std::size_t size_end = file.find('\n', at);
  const std::size_t header_bytes = std::stoul(file.substr(at, size_end - at));
  at = size_end + 1;
  p.header = nlohmann::json::parse(file.substr(at, header_bytes));
  p.atoms = file.substr(at + header_bytes, file.size() - 15 - at - header_bytes);
  return p;
}

std::string join(const Parts& p) {
  const std::string header = p.header.dump();
  std::string out = p.first_line + std::to_string(header.size()) + "\n" + header + p.atoms;
  return reseal_restart(out + "crc32 00000000\n");
}

// read_restart of `bytes` in a fresh simulation: the message it refuses them with, or "" when it
// accepts them. A refused file must leave the simulation as it was.
std::string refusal(Session& s, const std::string& bytes, const std::string& script = "") {
  const std::string path = ::testing::TempDir() + "tessera_restart_case.restart";
  spit(path, bytes);
  std::string message;
  try {
    s.input.run_script("read_restart " + path + "\n" + script, "case");
  } catch (const Error& e) {
    message = e.what();
    if (script.empty()) {
      EXPECT_FALSE(s.sim().has_box()) << "a refused file changed the simulation";
    }
  }
  std::remove(path.c_str());
  return message;
}

TEST(Restart, TheGoodFileIsAccepted) {
  Session s(host_target(2), 1);
  EXPECT_EQ(refusal(s, good_restart()), "");
  EXPECT_EQ(s.sim().natoms(), 108);
  EXPECT_EQ(s.sim().step(), 20);
}

// One bit flipped in every byte of the file (the bit rotates with the position), then every
// byte overwritten with another value: every one is refused with a message, none crashes.
TEST(Restart, EveryFlippedBitAndOverwrittenByteIsRefused) {
  const std::string& good = good_restart();
  ASSERT_GT(good.size(), 10000u);
  Session s(host_target(2), 1);
  std::size_t refused = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < good.size(); ++i) {
      std::string bad = good;
      const auto byte = static_cast<unsigned char>(bad[i]);
      bad[i] = static_cast<char>(pass == 0 ? byte ^ (1u << (i % 8)) : byte + 1 + i % 255);
      const std::string why = refusal(s, bad);
      ASSERT_NE(why, "") << (pass == 0 ? "a bit flip" : "an overwrite") << " of byte " << i
                         << " of " << good.size() << " was accepted";
      ASSERT_NE(why.find("read_restart"), std::string::npos) << why;
      ++refused;
    }
  EXPECT_EQ(refused, 2 * good.size());
}

TEST(Restart, TruncatedOrExtendedFilesAreRefused) {
  const std::string& good = good_restart();
  Session s(host_target(2), 1);
  for (std::size_t keep : {std::size_t{0}, std::size_t{10}, std::size_t{30}, good.size() / 2,
                           good.size() - 16, good.size() - 1})
    EXPECT_NE(refusal(s, good.substr(0, keep)), "") << "kept " << keep << " bytes";
  EXPECT_NE(refusal(s, good + "x"), "");
  EXPECT_NE(refusal(s, good + good), "");
}

// Header fields edited to values their commands refuse, with a valid checksum: each is named.
TEST(Restart, EveryHeaderFieldIsCheckedLikeItsCommand) {
  const Parts good = split(good_restart());
  ASSERT_EQ(join(good), good_restart()) << "split/join does not round-trip";
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"/neighbor/every", 0, "neighbor.every = 0, outside 1..2147483647 (as neigh_modify every"},
      {"/neighbor/delay", -5, "neighbor.delay = -5, outside 0..2147483647"},
      {"/neighbor/skin", -1.0, "neighbor.skin = -1.0, which neighbor refuses"},
      {"/neighbor/check", 1, "neighbor.check = 1, not true or false"},
      {"/fixes/1/seed", 0, "fixes[1].seed = 0, outside 1..2147483647"},
      {"/fixes/1/seed", 4294967297LL, "fixes[1].seed = 4294967297, outside"},
      {"/fixes/1/damp", 0.0, "fixes[1].damp = 0.0, which fix langevin refuses"},
      {"/fixes/0/t_damp", -1.0, "fixes[0].t_damp = -1.0, which fix nvt refuses"},
      {"/fixes/0/eta", nlohmann::json::array({0, 0}), "fixes[0].eta = [0,0], not 3 numbers"},
      {"/fixes/2", nlohmann::json::object({{"style", "nve"}, {"id", "9"}}),
       "records both fix nvt and fix nve integrating group all"},
      {"/fixes/2", nlohmann::json::object({{"style", "press"}, {"id", "9"}}),
       "records fix style 'press'"},
      {"/fixes/0/style", nullptr, "fixes[0].style"},
      {"/boundary/faces/1", "pf", "has boundary faces 'pf' in y, which boundary refuses"},
      {"/boundary/small", nlohmann::json::array({0, 0}), "boundary.small = [0,0], not 3 numbers"},
      {"/box/hi/0", 1e308, "has a box whose volume is not finite"},
      {"/box/hi/1", -3.0, "which create_box refuses"},
      {"/box/lo/2", nullptr, "box.lo[2] = null, not a number"},
      {"/types", 2, "records 1 masses for 2 atom types"},
      {"/types", 4294967297LL, "types = 4294967297, outside 1..2147483647 (as create_box"},
      {"/types", 0, "types = 0, outside 1..2147483647"},
      {"/masses", nlohmann::json::array({1.0, 1.0}), "records 2 masses for 1 atom types"},
      {"/masses/0", -1.0, "masses[0] = -1.0, which mass refuses"},
      {"/step", -1, "step = -1, outside 0..9223372036854775807 (as reset_timestep"},
      {"/step", 18446744073709551615ULL, "step = 18446744073709551615, outside"},
      {"/timestep", 0.0, "timestep = 0.0, which timestep refuses"},
      {"/units", "si", "records units si: unsupported unit style"},
      {"/pair/cutoff", nullptr, "pair.cutoff = null, not a number"},
      {"/pair/coeffs/0/0", 2, "pair.coeffs[0][0] = 2, outside 1..1 (as pair_coeff"},
      {"/pair/coeffs/0/3", 0.0, "pair.coeffs[0][3] = 0.0, which pair_coeff refuses"},
      {"/pair/mix", "harmonic", "pair.mix = 'harmonic', which pair_modify mix refuses"},
      {"/pair/style", "airebo", "records pair style 'airebo'"},
      {"/atoms", 107, "is truncated or has trailing bytes"},
      {"/atoms", 9223372036854775807LL, "is truncated or has trailing bytes"},
      {"/atom_record_bytes", 96, "was written with another atom layout"},
      {"/atom_style", "ellipsoid",
       "records atom_style 'ellipsoid'; this md_ipu has atomic, charge, bond, angle, molecular and "
       "full"},
      {"/atom_style", "bond", "has no header field topology"},
  };
  for (const auto& c : cases) {
    Session s(host_target(2), 1);
    Parts edited = good;
    edited.header[nlohmann::json::json_pointer(c.pointer)] = c.value;
    const std::string why = refusal(s, join(edited));
    EXPECT_NE(why.find(c.message), std::string::npos)
        << c.pointer << " = " << c.value.dump() << ": " << (why.empty() ? "accepted" : why);
  }
  // A header field missing altogether.
  Session s(host_target(2), 1);
  Parts edited = good;
  edited.header["neighbor"].erase("every");
  EXPECT_NE(refusal(s, join(edited)).find("has no header field neighbor.every"), std::string::npos);
}

// Atom records edited to values read_data would refuse, with a valid checksum.
TEST(Restart, EveryAtomRecordIsChecked) {
  const Parts good = split(good_restart());
  const std::size_t n = good.atoms.size() / sizeof(AtomRecord);
  ASSERT_EQ(n, 108u);
  auto with = [&](std::size_t k, auto edit) {
    Parts p = good;
    AtomRecord a;
    std::memcpy(&a, p.atoms.data() + k * sizeof a, sizeof a);
    edit(a);
    std::memcpy(p.atoms.data() + k * sizeof a, &a, sizeof a);
    return join(p);
  };
  Session s(host_target(2), 1);  // every case is refused before the simulation changes
  EXPECT_NE(refusal(s, with(3, [](AtomRecord& a) { a.type = 2; })).find("type 2 is out of range"),
            std::string::npos);
  EXPECT_NE(refusal(s, with(3, [](AtomRecord& a) { a.id = 3; })).find("increasing id order"),
            std::string::npos);
  EXPECT_NE(refusal(s, with(0, [](AtomRecord& a) { a.id = 0; })).find("ids must be positive"),
            std::string::npos);
  EXPECT_NE(refusal(s, with(5, [](AtomRecord& a) { a.v[1] = std::nan(""); })).find("not finite"),
            std::string::npos);
  EXPECT_NE(refusal(s, with(5, [](AtomRecord& a) { a.noise = 0; })).find("Langevin random state"),
            std::string::npos);
  EXPECT_NE(refusal(s, with(7, [](AtomRecord& a) { a.x[0] = 1e300; })).find("outside the box"),
            std::string::npos);  EXPECT_NE(refusal(s, with(2, [](AtomRecord& a) { a.q = 1.0; }))
                .find("a charge of 1.000000 in a file of atom_style atomic"),
            std::string::npos);
}

// A mass of 1e308 is a valid mass (LAMMPS takes it too), but the kinetic energy overflows: the
// run stops at step 20 naming an atom, where it printed inf and exited 0.
TEST(Restart, AHugeMassStopsTheRunWithTheAtom) {
  Parts p = split(good_restart());
  p.header["masses"][0] = 1e308;
  Session s(host_target(2), 1);
  const std::string why = refusal(s, join(p), "run 1\n");
  EXPECT_NE(why.find("is not finite at step 20: atom 1 is the first"), std::string::npos) << why;
}

TEST(Restart, AVersionOneFileIsRefusedByName) {
  Parts p = split(good_restart());
  p.first_line = "TESSERA-MD-RESTART 1\n";
  Session s(host_target(2), 1);
  EXPECT_NE(refusal(s, join(p)).find("has version 1; this md_ipu reads versions 2 to 5"),
            std::string::npos);
}

void expect_same_atoms(Simulation& a, Simulation& b, const std::string& what) {
  const auto end_a = a.gather_atoms(), end_b = b.gather_atoms();
  ASSERT_EQ(end_a.size(), end_b.size()) << what;
  for (std::size_t i = 0; i < end_a.size(); ++i) {
    ASSERT_EQ(end_a[i].id, end_b[i].id) << what;
    for (std::size_t d = 0; d < 3; ++d) {
      ASSERT_EQ(end_a[i].x[d], end_b[i].x[d]) << what << ": atom " << end_a[i].id;
      ASSERT_EQ(end_a[i].v[d], end_b[i].v[d]) << what << ": atom " << end_a[i].id;
    }
  }
}

// run 50 + run 50 pre no == run 100 bit for bit, with fix langevin (alone, and with nvt), on a
// target of many tiles and 1 or 2 threads. It was 3e-2 apart in the temperature: the setup of
// the second run dropped the thermostat's forces. (Without pre no the second run sets up as
// LAMMPS's does: lammps_reference_test checks that against LAMMPS.)
TEST(Continuation, TwoRunsAreOneRunBitwise) {
  const std::string body = std::string(kSystem).substr(0, std::string(kSystem).find("fix 1"));
  Target ipu = Target::preset("gc200");
  ipu.tiles_per_ipu = 27;
  for (const std::string fixes :
       {"fix 1 all nve\nfix 2 all langevin 1.0 1.0 1.0 48279\n",
        "fix 1 all nvt temp 1.0 1.0 0.5\nfix 2 all langevin 1.0 1.0 2.0 777\n"})
    for (int threads : {1, 2}) {
      Session one(ipu, threads), two(ipu, threads);
      one.input.run_script(body + fixes + "run 100\n", "one run");
      two.input.run_script(body + fixes + "run 50\nrun 50 pre no\n", "two runs");
      expect_same_atoms(one.sim(), two.sim(), fixes + " on " + std::to_string(threads) + " threads");
      EXPECT_EQ(two.sim().step(), 100);
    }
}

// A command between the runs makes the second set up anew (LAMMPS's setup, with the Langevin
// forces drawn from each atom's stream): the same as a run continued from a restart file.
TEST(Continuation, ACommandBetweenRunsSetsUpLikeARestart) {
  const std::string path = ::testing::TempDir() + "tessera_continuation.restart";
  Session a(host_target(2), 1), b(host_target(2), 1);
  a.input.run_script(kSystem, "first");
  write_restart(a.sim(), path);
  a.input.run_script("run 30\n", "after the restart file");
  b.input.run_script("read_restart " + path + "\nrun 30\n", "from the restart file");
  expect_same_atoms(a.sim(), b.sim(), "continued from a restart file");
  std::remove(path.c_str());
}

// Groups are per-atom masks and fixes act on groups: both come back from a restart file, so the
// run after it is the run without it (the middle slab moving under nve, the walls' forces set).
TEST(Continuation, GroupsAndTheirFixesComeBackFromARestart) {
  std::string body = read_text(data_dir() + "/in.groups");
  body = body.substr(0, body.find("run "));
  const std::string path = ::testing::TempDir() + "tessera_groups.restart";
  Session a(host_target(2), 1), b(host_target(2), 1);
  a.input.run_script(body + "run 60\n", "groups");
  write_restart(a.sim(), path);
  a.input.run_script("run 40\n", "after the restart file");
  b.input.run_script("read_restart " + path + "\nrun 40\n", "from the restart file");
  EXPECT_EQ(b.sim().groups(), a.sim().groups());
  ASSERT_EQ(b.sim().fixes().size(), 2u);
  EXPECT_EQ(b.sim().fixes()[0]->group() + " " + b.sim().fixes()[1]->group(), "middle bottom");
  expect_same_atoms(a.sim(), b.sim(), "groups and their fixes from a restart file");
  std::remove(path.c_str());
}

// The atom records as files before version 5 hold them: without the charge after the mask.
std::string records_without_charges(const std::string& atoms) {
  std::string old;
  const std::size_t at = offsetof(AtomRecord, q);
  for (std::size_t k = 0; k < atoms.size(); k += sizeof(AtomRecord))
    old += atoms.substr(k, at) + atoms.substr(k + at + sizeof(double), sizeof(AtomRecord) - at - sizeof(double));
  return old;
}

// A version 4 file (atom records without charges) is read as the same atoms, uncharged.
TEST(Restart, AVersionFourFileIsReadWithoutCharges) {
  const Parts now = split(good_restart());
  Parts old = now;
  old.first_line = "TESSERA-MD-RESTART 4\n";
  old.header.erase("atom_style");
  old.header["atom_record_bytes"] = sizeof(AtomRecord) - sizeof(double);
  old.atoms = records_without_charges(now.atoms);
  Session a(host_target(2), 1), b(host_target(2), 1);
  ASSERT_EQ(refusal(a, join(now)), "");
  ASSERT_EQ(refusal(b, join(old)), "");
  EXPECT_FALSE(b.sim().charged());
  const auto atoms_a = a.sim().gather_atoms(), atoms_b = b.sim().gather_atoms();
  ASSERT_EQ(atoms_a.size(), atoms_b.size());
  for (std::size_t i = 0; i < atoms_a.size(); ++i) {
    EXPECT_EQ(atoms_b[i].id, atoms_a[i].id);
    EXPECT_EQ(atoms_b[i].mask, atoms_a[i].mask);
    EXPECT_EQ(atoms_b[i].noise, atoms_a[i].noise);
    EXPECT_EQ(atoms_b[i].q, 0.0);
    for (std::size_t d = 0; d < 3; ++d) {
      EXPECT_EQ(atoms_b[i].x[d], atoms_a[i].x[d]);
      EXPECT_EQ(atoms_b[i].v[d], atoms_a[i].v[d]);
    }
  }
  // A version 5 file of the old layout is damaged.
  old.first_line = "TESSERA-MD-RESTART 5\n";
  Session c(host_target(2), 1);
  EXPECT_NE(refusal(c, join(old)).find("was written with another atom layout"), std::string::npos);
}

// A version 3 file (fixes keyed by style, no boundary) is still read: periodic, its fixes kept.
TEST(Restart, AVersionThreeFileIsRead) {
  Parts old = split(good_restart());
  old.first_line = "TESSERA-MD-RESTART 3\n";
  old.header.erase("atom_style");
  old.header["atom_record_bytes"] = sizeof(AtomRecord) - sizeof(double);
  old.atoms = records_without_charges(old.atoms);
  old.header.erase("boundary");
  nlohmann::json by_style = nlohmann::json::object();
  for (auto section : old.header["fixes"]) {
    const std::string style = section["style"];
    section.erase("style");
    by_style[style] = section;
  }
  old.header["fixes"] = by_style;
  Session s(host_target(2), 1);
  EXPECT_EQ(refusal(s, join(old)), "");
  ASSERT_EQ(s.sim().fixes().size(), 2u);
  EXPECT_EQ(s.sim().boundary().letters(0), "pp");
}

// Fixes come back in the order they were defined, which is the order of their effects: in 2-d,
// enforce2d after langevin zeroes the thermostat's z force; in the other order (the order of
// their names, as version 3 files kept them) atoms would leave the plane.
TEST(Continuation, FixesComeBackInTheirOrder) {
  const std::string body = R"(
units lj
dimension 2
lattice sq2 0.8442
region box block 0 8 0 8 -0.1 0.1
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.0 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
fix 1 all nve
fix 2 all langevin 1.0 1.0 0.5 4321
fix 3 all enforce2d
)";
  const std::string path = ::testing::TempDir() + "tessera_fix_order.restart";
  Session a(host_target(2), 1), b(host_target(2), 1);
  a.input.run_script(body + "run 30\n", "2-d langevin");
  write_restart(a.sim(), path);
  a.input.run_script("run 30\n", "after the restart file");
  b.input.run_script("read_restart " + path + "\nrun 30\n", "from the restart file");
  ASSERT_EQ(b.sim().fixes().size(), 3u);
  EXPECT_EQ(b.sim().fixes()[1]->style() + " " + b.sim().fixes()[2]->style(), "langevin enforce2d");
  expect_same_atoms(a.sim(), b.sim(), "2-d langevin and enforce2d from a restart file");
  std::remove(path.c_str());
}

// Non-periodic faces and the shrink-wrapped box (with its margin and the m faces' limits) come
// back from a restart file: the run after it is the run without it.
TEST(Continuation, ShrinkWrappedBoxesComeBackFromARestart) {
  std::string body = read_text(data_dir() + "/in.boundary");
  body = body.substr(0, body.find("run "));
  const std::string path = ::testing::TempDir() + "tessera_boundary.restart";
  Session a(host_target(2), 1), b(host_target(2), 1);
  a.input.define_variable("bx", {"m"});
  a.input.define_variable("by", {"sm"});
  a.input.define_variable("bz", {"fs"});
  a.input.run_script(body + "run 100\n", "boundary");
  write_restart(a.sim(), path);
  a.input.run_script("run 100\n", "after the restart file");
  b.input.run_script("read_restart " + path + "\nrun 100\n", "from the restart file");
  EXPECT_EQ(b.sim().boundary().letters(1), "sm");
  EXPECT_EQ(b.sim().boundary().letters(2), "fs");
  for (std::size_t d = 0; d < 3; ++d) {
    EXPECT_EQ(b.sim().box().lo[d], a.sim().box().lo[d]);
    EXPECT_EQ(b.sim().box().hi[d], a.sim().box().hi[d]);
  }
  expect_same_atoms(a.sim(), b.sim(), "a shrink-wrapped box from a restart file");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tessera::md::test
