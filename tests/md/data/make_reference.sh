#!/usr/bin/env bash
# Regenerates the LAMMPS reference files in this folder with Debian's lammps
# package (scripts/setup bench installs it). The outputs are committed; LAMMPS is not.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
command -v lmp >/dev/null || { echo "lmp not found: run scripts/setup bench" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A perturbed two-type fcc configuration for the force test.
cat > "$work/make_forces.in" <<'IN'
units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 5 0 5 0 5
create_box 2 box
create_atoms 1 box
set type 1 type/fraction 2 0.3 12345
displace_atoms all random 0.1 0.1 0.1 4321
mass 1 1.0
mass 2 2.0
velocity all create 1.0 4928459 loop geom
write_data forces.data
IN
(cd "$work" && lmp -in make_forces.in -log none >/dev/null)
grep -v '^LAMMPS data file' "$work/forces.data" | sed '1i Perturbed two-type fcc (LAMMPS write_data)' > forces.data

cp in.forces forces.data "$work/"
(cd "$work" && lmp -in in.forces -var dumpfile forces.lammps.dump -log none > forces.lammps.log)
cp "$work/forces.lammps.dump" .
sed -n '/^Step/,/^Loop/p' "$work/forces.lammps.log" | grep -v '^Loop' > forces.lammps.thermo

# in.lj, unmodified, and with a thermo line every 10 steps.
(cd "$work" && lmp -in "$here/in.lj" -log none) | sed -n '/^Step/,/^Loop/p' | grep -v '^Loop' > in.lj.lammps.thermo
sed 's/^run.*/thermo 10\nrun 100/' in.lj > "$work/in.lj10"
(cd "$work" && lmp -in in.lj10 -log none) | sed -n '/^Step/,/^Loop/p' | grep -v '^Loop' > in.lj10.lammps.thermo

# A 4000-atom liquid written by LAMMPS after velocity create, and LAMMPS's run from it.
sed 's/20\*\$x/10*$x/; s/20\*\$y/10*$y/; s/20\*\$z/10*$z/; s/^run.*/write_data lj4000.data/' in.lj > "$work/make_lj4000.in"
(cd "$work" && lmp -in make_lj4000.in -log none >/dev/null)
cp "$work/lj4000.data" .
cp in.lj4000 "$work/"
(cd "$work" && lmp -in in.lj4000 -log none) | sed -n '/^Step/,/^Loop/p' | grep -v '^Loop' > in.lj4000.lammps.thermo
# The same liquid under fix nvt with a ramp, in two runs (LAMMPS sets up at each).
cp in.lj4000.nvt "$work/"
(cd "$work" && lmp -in in.lj4000.nvt -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > in.lj4000.nvt.lammps.thermo
# create_atoms on regions whose faces hold lattice points: LAMMPS's counts.
(cd "$work" && lmp -in "$here/in.create_atoms" -log none) | grep -E '^Created [0-9]+ atoms|atoms in group' > create_atoms.lammps.out
# Dumped positions between rebuilds (atoms outside the box until the next one).
cp in.dump_positions "$work/"
(cd "$work" && lmp -in in.dump_positions -var dumpfile dump_positions.lammps.dump -log none >/dev/null)
cp "$work/dump_positions.lammps.dump" .
# print (screen, file, append) and run every: the lines print_matches_lammps.sh compares.
(cd "$work" && lmp -in "$here/in.print" -log none) | grep -E '^(T = |half|over|chunk|Loop time of)' |
  sed -E 's/^Loop time of [^ ]+/Loop time of T/' > print.lammps.out
cp "$work/print_p.txt" print_p.lammps.txt
cp "$work/print_q.txt" print_q.lammps.txt
# thermo_style custom with variables: LAMMPS's screen output, for thermo_matches_lammps.py.
cp in.thermo_variables lj4000.data "$work/"
(cd "$work" && lmp -in in.thermo_variables -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > thermo_variables.lammps.out
# Script control (loop, next, jump, label, if, include, format, internal, string, delete).
cp in.script_control inc.script_control "$work/"
(cd "$work" && lmp -in in.script_control -log none) |
  grep -E "$(cat script_control.filter)" > script_control.lammps.out
# A 2-d liquid (dimension 2, hex lattice, enforce2d).
(cd "$work" && lmp -in "$here/in.2d" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > 2d.lammps.out
# Groups and fixes on groups: the group counts and the thermo table.
(cd "$work" && lmp -in "$here/in.groups" -log none) > "$work/groups.out"
grep 'atoms in group' "$work/groups.out" > groups.lammps.counts
sed -n '/^ *Step/,/^Loop/p' "$work/groups.out" | grep -v '^Loop' > groups.lammps.out
# set (region, type/fraction, atom ranges), atom_modify and fix balance accepted.
(cd "$work" && lmp -in "$here/in.set" -log none) > "$work/set.out"
grep -E 'settings made|atoms in group' "$work/set.out" > set.lammps.counts
sed -n '/^ *Step/,/^Loop/p' "$work/set.out" | grep -v '^Loop' > set.lammps.out
# Computes on groups in thermo and variables, thermo_modify temp, compute_modify extra/dof.
(cd "$work" && lmp -in "$here/in.computes" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > computes.lammps.out
# Non-periodic boundaries: shrink-wrapped, fixed, with a minimum, mixed faces; and atoms up to
# the faces.
for faces in "s s s" "p s p" "f f p" "m sm fs"; do
  set -- $faces
  (cd "$work" && lmp -in "$here/in.boundary" -var bx "$1" -var by "$2" -var bz "$3" -log none) |
    sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > "boundary_$1$2$3.lammps.out"
done
(cd "$work" && lmp -in "$here/in.boundary_faces" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > boundary_faces.lammps.out
# velocity on groups: create (loop all, geom; mom, rot, temp), set, ramp, scale, zero.
(cd "$work" && lmp -in "$here/in.velocity" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > velocity.lammps.out
# fix npt and nph: iso with a thermostat, aniso coupled in xy with drag, x y z with long chains.
(cd "$work" && lmp -in "$here/in.npt" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > npt.lammps.out
(cd "$work" && lmp -in "$here/in.npt_vector" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > npt_vector.lammps.out
# fix wall/lj93, lj126, lj1043 and harmonic (a variable wall, fix_modify energy).
(cd "$work" && lmp -in "$here/in.walls" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > walls.lammps.out
# fix temp/berendsen (fix_modify temp) and fix momentum (linear flags, angular, rescale).
(cd "$work" && lmp -in "$here/in.berendsen_momentum" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > berendsen_momentum.lammps.out
# fix press/berendsen: iso with temp/berendsen, aniso coupled xy with a modulus, x alone.
(cd "$work" && lmp -in "$here/in.press_berendsen" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > press_berendsen.lammps.out
# fix temp/rescale with fix_modify temp, addforce, wall/reflect, two setforce fixes.
(cd "$work" && lmp -in "$here/in.fixes" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > fixes.lammps.out
# Minimization (cg and sd; dmax, norm max; setforce acting in it, langevin not), thermo and the
# Minimization stats blocks; and a warmed 2-d crystal relaxed to the energy and force tolerances.
minimization() {  # INPUT OUTPUT [lmp arguments]
  local input=$1 output=$2
  shift 2
  (cd "$work" && lmp -in "$here/$input" "$@" -log none) > "$work/min.out"
  { sed -n '/^ *Step/,/^Loop/p' "$work/min.out" | grep -v '^Loop'
    sed -n '/^Minimization stats/,/Iterations, force/p' "$work/min.out"; } > "$output"
}
minimization in.minimize minimize_cg60.lammps.out -var style cg -var iterations 60
minimization in.minimize minimize_sd25.lammps.out -var style sd -var iterations 25
minimization in.minimize minimize_cg1000.lammps.out -var style cg -var iterations 1000
minimization in.minimize_crystal minimize_crystal.lammps.out
minimization in.minimize_fire minimize_fire.lammps.out
minimization in.minimize_fire_old minimize_fire_old.lammps.out
minimization in.indent indent.lammps.out
# fix ave/time: thermo (f_ID) and its files.
(cd "$work" && lmp -in "$here/in.ave_time" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > ave_time.lammps.out
cp "$work/ave_time_scalar.txt" ave_time_scalar.lammps.txt
cp "$work/ave_time_vector.txt" ave_time_vector.lammps.txt
# delete_atoms (region, group; compress yes as LAMMPS numbers the rest), then a run.
(cd "$work" && lmp -in "$here/in.delete_atoms" -log none) > "$work/delete.out"
{ grep Deleted "$work/delete.out"; sed -n '/^ *Step/,/^Loop/p' "$work/delete.out" | grep -v '^Loop'; } > delete_atoms.lammps.out
# neigh_modify exclude type.
(cd "$work" && lmp -in "$here/in.exclude" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > exclude.lammps.out
# compute chunk/atom and fix ave/chunk: thermo (c_ID, the chunk counts) and the files.
(cd "$work" && lmp -in "$here/in.chunk" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > chunk.lammps.out
for f in layers slabs pencils bricks species inner time; do cp "$work/chunk_$f.txt" "chunk_$f.lammps.txt"; done
# atom-style variables through compute reduce and fix ave/chunk: thermo and the profile.
(cd "$work" && lmp -in "$here/in.atom_variable" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > atom_variable.lammps.out
cp "$work/atom_variable_profile.txt" atom_variable_profile.lammps.txt
# fix heat, compute temp/region, fix thermal/conductivity, fix ave/chunk's array.
(cd "$work" && lmp -in "$here/in.heat_flow" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > heat_flow.lammps.out
# compute vacf.
(cd "$work" && lmp -in "$here/in.vacf" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > vacf.lammps.out
# fix vector and the special functions of formulas.
(cd "$work" && lmp -in "$here/in.vector" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > vector.lammps.out
# compute rdf through fix ave/time mode vector and thermo.
(cd "$work" && lmp -in "$here/in.rdf" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > rdf.lammps.out
cp "$work/rdf_all.txt" rdf_all.lammps.txt
cp "$work/rdf_sets.txt" rdf_sets.lammps.txt
# fix property/atom, set and compute property/atom on custom properties, balance's weights and
# fix balance's outputs (a 1-processor run: md_ipu's host with one thread has one tile).
(cd "$work" && lmp -in "$here/in.property_atom" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > property_atom.lammps.out
(cd "$work" && lmp -in "$here/in.property_atom" -var balance_outputs yes -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > balance_outputs.lammps.out
# random() and normal() in equal- and atom-style variables, set from atom-style variables, atom
# value references, a run without an integrating fix.
(cd "$work" && lmp -in "$here/in.random" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > random.lammps.out
# fix langevin's tally with temp/region biases, drag alone (no random forces to differ).
(cd "$work" && lmp -in "$here/in.langevin_tally" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > langevin_tally.lammps.out
# create_atoms single's positions.
(cd "$work" && lmp -in "$here/in.create_single" -log none) | grep -E '^(Created [0-9]|atom |[0-9]+ atoms)' > create_single.lammps.out
# compute temp/ramp, also as thermo's temperature.
(cd "$work" && lmp -in "$here/in.temp_ramp" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > temp_ramp.lammps.out
for thermostat in rescale berendsen nvt langevin; do
  (cd "$work" && lmp -in "$here/in.temp_ramp" -var thermostat $thermostat -log none) |
    sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > temp_ramp_$thermostat.lammps.out
done
# Group functions in formulas.
(cd "$work" && lmp -in "$here/in.group_functions" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > group_functions.lammps.out
# fix print's screen lines and files.
(cd "$work" && lmp -in "$here/in.fix_print" -log none) | grep -E '^(step|q at|before)' > fix_print.lammps.out
cp "$work/fix_print_p.txt" fix_print_p.lammps.txt
cp "$work/fix_print_q.txt" fix_print_q.lammps.txt
# displace_atoms.
(cd "$work" && lmp -in "$here/in.displace_atoms" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > displace_atoms.lammps.out
# fix spring, tether and couple, in a run and a minimization.
minimization in.spring spring.lammps.out
# pair_modify tail yes in NVE and NPT.
(cd "$work" && lmp -in "$here/in.tail" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > tail.lammps.out
# compute pe/atom, stress/atom and heat/flux.
(cd "$work" && lmp -in "$here/in.heat_flux" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > heat_flux.lammps.out
# fix ave/correlate: thermo and its files. LAMMPS's header for type lower names only the pairs
# (i, j) with j < i - 1 (a slip in its header loop; the data has every pair i > j): the
# reference carries the header md_ipu writes, which names them all.
(cd "$work" && lmp -in "$here/in.ave_correlate" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > ave_correlate.lammps.out
cp "$work/ave_correlate_heatflux.txt" ave_correlate_heatflux.lammps.txt
cp "$work/ave_correlate_stress.txt" ave_correlate_stress.lammps.txt
sed '3s/.*/# Index TimeDelta Ncount v_pxz*v_pxy v_pyz*v_pxy v_pyz*v_pxz/' "$work/ave_correlate_lower.txt" > ave_correlate_lower.lammps.txt
# rerun and read_dump (the input writes the dumps it reads).
(cd "$work" && lmp -in "$here/in.rerun" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > rerun.lammps.out
# fix ave/histo: thermo and its files.
(cd "$work" && lmp -in "$here/in.ave_histo" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > ave_histo.lammps.out
for f in vx speed pe temp press; do cp "$work/ave_histo_$f.txt" "ave_histo_$f.lammps.txt"; done
# replicate.
(cd "$work" && lmp -in "$here/in.replicate" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > replicate.lammps.out
# fix recenter.
(cd "$work" && lmp -in "$here/in.recenter" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > recenter.lammps.out
# gmask, rmask and grmask.
(cd "$work" && lmp -in "$here/in.mask_functions" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > mask_functions.lammps.out
# clear between systems in a loop, then in other units and dimensions.
(cd "$work" && lmp -in "$here/in.clear" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > clear.lammps.out
# fix deposit.
for n in deposit deposit_keywords deposit_restart; do
  (cd "$work" && lmp -in "$here/in.$n" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > $n.lammps.out
done
# region prism in an orthogonal box.
(cd "$work" && lmp -in "$here/in.prism" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > prism.lammps.out
# A triclinic box, its data file and replicate.
(cd "$work" && lmp -in "$here/in.triclinic" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > triclinic.lammps.out
cp "$work/triclinic.dump" triclinic.lammps.dump
# fix deform's styles, shear flow with fix nvt/sllod and compute temp/deform, and barostats
# that change the cell's shape.
for n in deform nemd_sllod nemd_sllod_deform_first change_box npt_tri; do
  (cd "$work" && lmp -in "$here/in.$n" -log none) | sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > $n.lammps.out
done
# Rigid bodies (fix rigid and rigid/nve; the bodies from a variable, an atomfile or a data file
# section read into fix property/atom, all with the same thermo).
ref() { (cd "$work" && lmp -in "$here/$1" -var data "$here" "${@:3}" -log none) |
  sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > "$2"; }
ref in.rigid_bodies rigid_bodies.lammps.out
ref in.rigid_bodies rigid_bodies_nve_early.lammps.out -var style rigid/nve -var forces early
ref in.rigid_bodies rigid_bodies_linear.lammps.out -var zlo 7.5 -var scalar 0
ref in.rigid_bodies rigid_bodies_linear_nve.lammps.out -var style rigid/nve -var zlo 7.5 -var scalar 0
# in.rigid_property prints what in.rigid_bodies does (its test compares it with that file).
# Steinhardt order parameters (compute orientorder/atom) of crystals and a melt.
ref in.orientorder orientorder.lammps.out
# EAM metals: funcfl, setfl and Finnis-Sinclair files, in units metal and real.
ref in.eam eam.lammps.out
ref in.eam eam_alloy.lammps.out -var style alloy
ref in.eam eam_fs.lammps.out -var style fs
ref in.eam eam_alloy_real.lammps.out -var style alloy -var units real
# The pairwise styles.
for style in morse buck buck_tail soft zero; do
  ref in.pairwise pairwise_$style.lammps.out -var style $style
done
# The many-body potentials of element triplets: tersoff (two files, shift, units real),
# tersoff/mod, tersoff/mod/c, sw (two elements; silicon found by its name alone), vashishta
# (in units metal and real).
ref in.manybody manybody_tersoff.lammps.out -var style tersoff
ref in.manybody manybody_tersoff_1994.lammps.out -var style tersoff_1994
ref in.manybody manybody_tersoff_shift.lammps.out -var style tersoff_shift
ref in.manybody manybody_tersoff_real.lammps.out -var style tersoff -var units real
ref in.manybody manybody_tersoff_mod.lammps.out -var style tersoff_mod -var a 5.431
ref in.manybody manybody_tersoff_mod_c.lammps.out -var style tersoff_mod_c -var a 5.431
ref in.manybody manybody_sw.lammps.out -var style sw -var a 6.48
LAMMPS_POTENTIALS=/usr/share/lammps/potentials ref in.manybody manybody_sw_si.lammps.out -var style sw_si -var a 5.431
ref in.manybody manybody_vashishta.lammps.out -var style vashishta -var a 5.87
ref in.manybody manybody_vashishta_real.lammps.out -var style vashishta -var a 5.87 -var units real
ref in.charged charged_coul_cut.lammps.out -var style coul_cut -var q2 0.5
ref in.charged charged_coul_debye.lammps.out -var style coul_debye -var q2 0.5
ref in.charged charged_lj_cut_coul_cut.lammps.out -var style lj_cut_coul_cut
ref in.charged charged_lj_cut_coul_debye.lammps.out -var style lj_cut_coul_debye
ref in.charged charged_buck_coul_cut.lammps.out -var style buck_coul_cut
ref in.charged charged_lj_cut_coul_cut_real.lammps.out -var style lj_cut_coul_cut -var units real
ref in.charged charged_lj_cut_coul_long.lammps.out -var style lj_cut_coul_long
ref in.charged charged_buck_coul_long.lammps.out -var style buck_coul_long
ref in.charged charged_coul_long.lammps.out -var style coul_long -var q2 0.5
ref in.charged charged_lj_cut_coul_long_real.lammps.out -var style lj_cut_coul_long -var units real
# LAMMPS's dielectric command: the Coulomb terms, real-space and Ewald, divided by it.
ref in.charged charged_lj_cut_coul_cut_dielectric.lammps.out -var style lj_cut_coul_cut -var dielectric 2.5
ref in.charged charged_lj_cut_coul_long_dielectric.lammps.out -var style lj_cut_coul_long -var dielectric 2.5
# pair_style table: each interpolation from a table even in r, one even in r^2 used as it is,
# one with the file's own distances and end slopes; a potential file of lammps-data in two units.
ref in.table table_linear.lammps.out -var style linear -var n 1000 -var section LJ_R
ref in.table table_spline.lammps.out -var style spline -var n 1000 -var section LJ_R
ref in.table table_lookup.lammps.out -var style lookup -var n 1000 -var section LJ_R
ref in.table table_bitmap.lammps.out -var style bitmap -var n 12 -var section LJ_R -var more 20
ref in.table table_linear_match.lammps.out -var style linear -var n 400 -var section LJ_RSQ
ref in.table table_spline_fprime.lammps.out -var style spline -var n 500 -var section LJ_FILE
ref in.table_he table_he_metal.lammps.out
ref in.table_he table_he_real.lammps.out -var units real
# pair_style hybrid and hybrid/overlay, pairwise and many-body sub-styles.
for style in lj_table lj_twice lj_overlay; do
  ref in.hybrid_lj hybrid_$style.lammps.out -var style $style
done
ref in.hybrid_manybody hybrid_eam_morse.lammps.out -var style eam_morse
ref in.hybrid_manybody hybrid_eam_overlay.lammps.out -var style eam_overlay
silicon="-var lattice diamond -var a 5.431 -var mass 28.0855 -var temp 1000.0"
ref in.hybrid_manybody hybrid_sw_lj.lammps.out -var style sw_lj $silicon
ref in.hybrid_manybody hybrid_tersoff_lj.lammps.out -var style tersoff_lj $silicon
# Thermostats continued after read_restart (restart_global), with ecouple and econserve.
for style in nvt npt berendsen rescale; do
  ref in.thermostat_restart thermostat_restart_$style.lammps.out -var style $style
done
# neigh_modify once yes.
ref in.neigh_once neigh_once.lammps.out
# Molecular systems from LAMMPS's examples (Debian's lammps-examples): micelle (atom_style bond,
# special_bonds fene, then other weights on lj/cut), flexible SPC/E water (atom_style full, bonds
# and angles, special weights with Ewald sums and with a cut Coulomb term), and its topology
# through restart and data files.
examples=/usr/share/lammps/examples
ref in.micelle micelle_pushoff.lammps.out -var examples $examples
# The main run's start: the push-off to its end (1000 steps), written by LAMMPS, rounded to 5
# decimals (both programs read the same numbers).
sed 's/^run.*/run 1000\nwrite_data micelle_relaxed_raw.data nocoeff/' in.micelle > "$work/relax.in"
(cd "$work" && lmp -in relax.in -var examples $examples -log none >/dev/null)
python3 - "$work/micelle_relaxed_raw.data" > micelle_relaxed.data <<'PY'
import sys
out, section = [], None
for line in open(sys.argv[1]).read().split("\n"):
    w = line.split()
    if w and w[0][0].isalpha():
        section = w[0]
    elif section == "Atoms" and len(w) == 9:
        line = " ".join(w[:3] + ["%.5f" % float(w[3]), "%.5f" % float(w[4])] + w[5:])
    elif section == "Velocities" and len(w) == 4:
        line = " ".join([w[0], "%.5f" % float(w[1]), "%.5f" % float(w[2]), "0"])
    out.append(line)
out[0] = ("LAMMPS data file: examples/micelle after its soft push-off (1000 steps at prefactor 20 "
          "with temp/rescale), written by LAMMPS 29 Sep 2021 and rounded to 5 decimals")
print("\n".join(out), end="")
PY
ref in.micelle_lj micelle_lj_fene.lammps.out -var w12 0.0 -var w13 1.0 -var w14 1.0
ref in.micelle_lj micelle_lj_weighted.lammps.out -var w12 0.0 -var w13 0.5 -var w14 0.8
ref in.micelle_lj micelle_lj_trimmed.lammps.out -var w12 0.0 -var w13 0.5 -var w14 0.8 -var trim yes
minimization in.micelle_min micelle_min.lammps.out -var data "$here" -var w12 0.0 -var w13 0.5 -var w14 0.8
ref in.spce_flexible spce_ewald_excluded.lammps.out -var examples $examples -var coul long -var w12 0.0 -var w13 0.0
ref in.spce_flexible spce_ewald_weighted.lammps.out -var examples $examples -var coul long -var w12 0.0 -var w13 0.5
ref in.spce_flexible spce_cut_weighted.lammps.out -var examples $examples -var coul cut -var w12 0.0 -var w13 0.5
ref in.spce_flexible spce_pppm_weighted.lammps.out -var examples $examples -var coul long -var w12 0.0 -var w13 0.5 -var kspace pppm
ref in.spce_restart spce_restart.lammps.out -var examples $examples
# Dihedrals and impropers: the methanol box of examples/dreiding (harmonic dihedrals, its own
# coefficients), OPLS-AA butane from examples/PACKAGES/drude/butane (OPLS dihedrals), and the
# solvated peptide of examples/peptide with a harmonic force field from its data file's numbers
# (peptide_harmonic.ff, written here: CHARMM angles without Urey-Bradley, CHARMM dihedrals with
# d = 0 or 180 as harmonic D = +1 or -1), also through restart and data files.
peptide=$examples/peptide/data.peptide
section() { awk -v s="$1" '$0==s{f=1;next} f&&/^[A-Z]/{f=0} f&&NF' "$peptide"; }
{
  echo "# The harmonic force field in.peptide_harmonic gives LAMMPS's examples/peptide (it says how it"
  echo "# follows from the data file's numbers): pair, bond, angle, dihedral and improper coefficients."
  section "Pair Coeffs" | awk '{printf "pair_coeff\t%s %s %s %s\n",$1,$1,$2,$3}'
  section "Bond Coeffs" | awk '{printf "bond_coeff\t%s %s %s\n",$1,$2,$3}'
  section "Angle Coeffs" | awk '{printf "angle_coeff\t%s %s %s\n",$1,$2,$3}'
  section "Dihedral Coeffs" | awk '{printf "dihedral_coeff\t%s %s %s %s\n",$1,$2,($4==180?-1:1),$3}'
  section "Improper Coeffs" | awk '{printf "improper_coeff\t%s %s %s\n",$1,$2,$3}'
} > peptide_harmonic.ff
ref in.dreiding_methanol dreiding_methanol.lammps.out -var examples $examples
ref in.butane_opls butane_opls.lammps.out -var examples $examples
ref in.peptide_harmonic peptide_harmonic.lammps.out -var examples $examples
ref in.peptide_restart peptide_restart.lammps.out -var examples $examples
# fix shake: examples/rdf-adf/in.spce with Ewald sums (1500 frozen water angles) and
# examples/peptide's own SHAKE (clusters of 2, 3 and 4 atoms and frozen angles) with its cluster
# counts and statistics lines (the regular expression is the one tests/md/CMakeLists.txt uses).
ref in.spce_shake spce_shake.lammps.out -var examples $examples
ref in.peptide_shake peptide_shake.lammps.out -var examples $examples
# PPPM: the same two as the examples write them (pppm 1.0e-6 and 0.0001).
ref in.spce_shake spce_pppm.lammps.out -var examples $examples -var kspace pppm -var accuracy 1.0e-6
ref in.peptide_shake peptide_pppm.lammps.out -var examples $examples -var kspace pppm -var accuracy 0.0001
# and the water under fix npt, PPPM following the box.
ref in.spce_shake spce_pppm_npt.lammps.out -var examples $examples -var kspace pppm -var accuracy 1.0e-5 -var ensemble npt
shake_lines='^(Finding SHAKE| +[0-9]+ = # of|SHAKE stats| +[0-9]+   [0-9])'
(cd "$work" && lmp -in "$here/in.peptide_shake" -var data "$here" -var examples $examples -log none) |
  grep -E "$shake_lines" > peptide_shake_stats.lammps.txt
# fix rattle: the same water and peptide held by it, and the water under fix npt with PPPM.
ref in.spce_shake spce_rattle.lammps.out -var examples $examples -var constraint rattle
ref in.peptide_shake peptide_rattle.lammps.out -var examples $examples -var constraint rattle
ref in.spce_shake spce_rattle_npt.lammps.out -var examples $examples -var constraint rattle -var kspace pppm -var accuracy 1.0e-5 -var ensemble npt
(cd "$work" && lmp -in "$here/in.peptide_shake" -var data "$here" -var examples $examples -var constraint rattle -log none) |
  grep -E "$shake_lines" > peptide_rattle_stats.lammps.txt
# dump custom's mol field.
(cd "$work" && lmp -in "$here/in.dump_mol" -var data "$here" -var examples $examples -log none >/dev/null)
cp "$work/dump_mol.custom" dump_mol.lammps.custom
# VISCOSITY/in.cos.1000SPCE: fix accelerate/cos, compute viscosity/cos as fix npt's and
# thermo's temperature, dielectric, and dump custom's element field.
ref in.cos_1000spce cos_1000spce.lammps.out -var examples $examples
cp "$work/cos_1000spce.dump" cos_1000spce.lammps.dump
# SPC/E water for the statistical test (../spce_statistics.py): 196 molecules cut from
# examples/rdf-adf/data.spce (those with the oxygen in a 1-19 A cube, in a 19 A box so that no two
# molecules overlap across its faces), settled by 30 ps of fix npt at 1 fs (spce196.data); then
# LAMMPS's density and g_OO block means from two independent 500 ps runs of in.spce_statistics
# (about 15 minutes each, run side by side).
cat > "$work/make_spce196.in" <<'IN'
units		real
atom_style	full
read_data	${examples}/rdf-adf/data.spce
variable	inside atom "type == 1 && x > 1.0 && x < 19.0 && y > 1.0 && y < 19.0 && z > 1.0 && z < 19.0"
group		keep variable inside
group		keep include molecule
group		drop subtract all keep
delete_atoms	group drop mol yes
change_box	all x final 0.5 19.5 y final 0.5 19.5 z final 0.5 19.5 units box
displace_atoms	all move 0 0 0 units box
reset_atom_ids
pair_style	lj/cut/coul/long 9.0 9.0
pair_coeff	* * 0.0 1.0
pair_coeff	1 1 0.15535 3.166
pair_modify	tail yes
kspace_style	pppm 1.0e-4
bond_style	harmonic
angle_style	harmonic
bond_coeff	1 1000.00 1.000
angle_coeff	1 100.0 109.47
special_bonds	lj/coul 0.0 0.0 0.0
neighbor	2.0 bin
neigh_modify	every 1 delay 0 check yes
timestep	1.0
fix		1 all shake 0.0001 20 0 b 1 a 1
fix		2 all npt temp 300.0 300.0 100.0 iso 1.0 1.0 1000.0
velocity	all create 300.0 4928459
run		30000
write_data	spce196.data nocoeff
IN
(cd "$work" && lmp -in make_spce196.in -var examples $examples -log none >/dev/null)
cp "$work/spce196.data" .
for seed in 3771 4771; do
  (cd "$work" && lmp -in "$here/in.spce_statistics" -var data "$here/spce196.data" -var seed $seed \
     -var steps 250000 -var prefix "lmp$seed" -log none >/dev/null) &
done
wait
python3 ../spce_statistics.py summarize spce_statistics.lammps.ref "$work/lmp3771" "$work/lmp4771"
# CHARMM: examples/peptide with erfc computed (pair_modify table 0), and the example as it is
# (thermo_style multi: its blocks from the first Step line to Loop time).
(cd "$work" && lmp -in "$here/in.thermo_line" -log none) |
  sed -n '/^ *Step\|^-* Step/,/^Loop/p' | grep -v '^Loop' > thermo_line.lammps.out
ref in.ave_chunk_bias ave_chunk_bias_ramp.lammps.out
ref in.ave_chunk_bias ave_chunk_bias_partial.lammps.out -var bias part
ref in.peptide_charmm peptide_charmm.lammps.out -var examples $examples
ref in.peptide_charmm peptide_charmmfsw.lammps.out -var examples $examples -var switching fsw
ref in.peptide_charmm peptide_charmm_table_step0.lammps.out -var examples $examples -var table 12 -var steps 0
ref in.peptide_charmm peptide_charmm_table.lammps.out -var examples $examples -var table 12
ref in.peptide_charmm_coul peptide_charmm_coul.lammps.out -var examples $examples
ref in.peptide_charmm_coul peptide_charmm_implicit.lammps.out -var examples $examples -var pair charmm/coul/charmm/implicit -var coul "10.0 12.0"
ref in.peptide_charmm_coul peptide_charmmfsh.lammps.out -var examples $examples -var pair charmmfsw/coul/charmmfsh -var dihedral charmmfsw -var coul 12.0
{
  echo "# examples/peptide's CHARMM force field as commands (in.peptide_charmm_files gives it again"
  echo "# after reading a data file): pair, bond, angle, dihedral and improper coefficients."
  section "Pair Coeffs" | awk '{printf "pair_coeff\t%s %s %s %s %s %s\n",$1,$1,$2,$3,$4,$5}'
  section "Bond Coeffs" | awk '{printf "bond_coeff\t%s %s %s\n",$1,$2,$3}'
  section "Angle Coeffs" | awk '{printf "angle_coeff\t%s %s %s %s %s\n",$1,$2,$3,$4,$5}'
  section "Dihedral Coeffs" | awk '{printf "dihedral_coeff\t%s %s %s %s %s\n",$1,$2,$3,$4,$5}'
  section "Improper Coeffs" | awk '{printf "improper_coeff\t%s %s %s\n",$1,$2,$3}'
} > peptide_charmm.ff
ref in.peptide_charmm_files peptide_charmm_files.lammps.out -var examples $examples
(cd $examples/peptide && lmp -in in.peptide -log none) |
  sed -n '/^-* Step/,/^Loop/p' | grep -v '^Loop' > peptide_example.lammps.out
# Dumps of a group.
(cd "$work" && lmp -in "$here/in.dump_group" -log none >/dev/null)
for f in custom atom xyz; do cp "$work/dump_group.$f" "dump_group.lammps.$f"; done
# compute adf, with a LAMMPS of Debian's version built with EXTRA-COMPUTE (Debian's lacks it):
# LMP_EXTRA_COMPUTE=$(tests/md/data/build_lammps_extra_compute.sh DIR) bash make_reference.sh
[[ -n ${LMP_EXTRA_COMPUTE:-} ]] || {
  echo "LMP_EXTRA_COMPUTE is not set: build it with build_lammps_extra_compute.sh (compute adf)" >&2
  exit 1
}
lmp_adf() { (cd "$work" && "$LMP_EXTRA_COMPUTE" -in "$here/$1" -var data "$here" "${@:3}" -log none) |
  sed -n '/^ *Step/,/^Loop/p' | grep -v '^Loop' > "$2"; }
lmp_adf in.adf adf.lammps.out
for f in all sets ranges; do cp "$work/adf_$f.txt" "adf_$f.lammps.txt"; done
lmp_adf in.spce_distributions spce_distributions.lammps.out -var examples $examples
lmp_adf in.spce_distributions /dev/null -var examples $examples -var name spce_excluded -var special 0.0
for name in spce spce_excluded; do
  for f in rdf adf; do cp "$work/$name-$f.dat" "$name-$f.lammps.dat"; done
done
# The atom and neighbor statistics after a run (Finish's Nlocal ... Dangerous builds): one process
# with the skin checked and not, four processes (their Neighs split differs from md_ipu's, whose
# ghost pairs go by atom id), and the micelle's minimization (special neighbors; its Neighs
# differ: LAMMPS's lists use each type pair's cutoff, md_ipu's the largest).
neighbor_lines='^(Nlocal|Nghost|Neighs|Histogram|Total # of|Ave |Neighbor list builds|Dangerous)'
(cd "$work" && lmp -in "$here/in.neighbor_stats" -var every 10 -var check yes -log none) |
  grep -E "$neighbor_lines" > neighbor_stats_check.lammps.txt
(cd "$work" && lmp -in "$here/in.neighbor_stats" -var every 20 -var check no -log none) |
  grep -E "$neighbor_lines" > neighbor_stats_no_check.lammps.txt
(cd "$work" && mpirun --oversubscribe --allow-run-as-root -np 4 lmp -in "$here/in.neighbor_stats" -var every 10 -var check yes -log none) |
  sed '/^Neighs:/,+1d' | grep -E '^(Nlocal|Nghost|Histogram|Total # of|Ave |Neighbor list builds|Dangerous)' > neighbor_stats_4procs.lammps.txt
(cd "$work" && lmp -in "$here/in.micelle_min" -var data "$here" -var w12 0.0 -var w13 0.5 -var w14 0.8 -log none) |
  grep -E '^(Nlocal|Nghost|Ave special|Neighbor list builds|Dangerous)' > neighbor_stats_micelle_min.lammps.txt
echo "reference files written"
