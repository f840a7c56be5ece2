// The pair styles md_ipu has: one line per style (pair.hpp).
#include "arguments.hpp"
#include "tessera/md/pair.hpp"
#include "tessera/md/pair_buck.hpp"
#include "tessera/md/pair_coul.hpp"
#include "tessera/md/pair_deepmd.hpp"
#include "tessera/md/pair_eam.hpp"
#include "tessera/md/pair_hybrid.hpp"
#include "tessera/md/pair_lj_charmm.hpp"
#include "tessera/md/pair_lj_cut.hpp"
#include "tessera/md/pair_morse.hpp"
#include "tessera/md/pair_soft.hpp"
#include "tessera/md/pair_sw.hpp"
#include "tessera/md/pair_table.hpp"
#include "tessera/md/pair_tersoff.hpp"
#include "tessera/md/pair_vashishta.hpp"
#include "tessera/md/pair_zero.hpp"

namespace tessera::md {

const Registry<Pair, const PairContext&>& pair_styles() {
  static const Registry<Pair, const PairContext&> styles = [] {
    Registry<Pair, const PairContext&> r("pair style");
    r.add<PairLJCut>("lj/cut");
    r.add<PairDeepMD>("deepmd");
    r.add<PairMorse>("morse");
    r.add<PairBuck>("buck");
    r.add<PairCoulCut>("coul/cut");
    r.add<PairCoulDebye>("coul/debye");
    r.add<PairLJCutCoulCut>("lj/cut/coul/cut");
    r.add<PairLJCutCoulDebye>("lj/cut/coul/debye");
    r.add<PairBuckCoulCut>("buck/coul/cut");
    r.add<PairCoulLong>("coul/long");
    r.add<PairLJCutCoulLong>("lj/cut/coul/long");
    r.add<PairBuckCoulLong>("buck/coul/long");
    r.add<PairLJCharmmCoulLong>("lj/charmm/coul/long");
    r.add<PairLJCharmmfswCoulLong>("lj/charmmfsw/coul/long");
    r.add<PairLJCharmmfswCoulCharmmfsh>("lj/charmmfsw/coul/charmmfsh");
    r.add<PairLJCharmmCoulCharmm>("lj/charmm/coul/charmm");
    r.add<PairLJCharmmCoulCharmmImplicit>("lj/charmm/coul/charmm/implicit");
    r.add<PairSoft>("soft");
    r.add<PairZero>("zero");
    r.add<PairSW>("sw");
    r.add<PairVashishta>("vashishta");
    r.add<PairTable>("table");
    // Styles that are one class with a variant: the variant given to its constructor.
    const auto variant = [&r]<class Style>(const char* name, typename Style::Variant v) {
      r.add(name, [v](const PairContext& c) -> std::unique_ptr<Pair> {
        return std::make_unique<Style>(c, v);
      });
    };
    variant.operator()<PairEAM>("eam", PairEAM::Format::funcfl);
    variant.operator()<PairEAM>("eam/alloy", PairEAM::Format::setfl);
    variant.operator()<PairEAM>("eam/fs", PairEAM::Format::fs);
    variant.operator()<PairTersoff>("tersoff", PairTersoff::Variant::tersoff);
    variant.operator()<PairTersoff>("tersoff/mod", PairTersoff::Variant::mod);
    variant.operator()<PairTersoff>("tersoff/mod/c", PairTersoff::Variant::mod_c);
    variant.operator()<PairHybrid>("hybrid", false);
    variant.operator()<PairHybrid>("hybrid/overlay", true);
    return r;
  }();
  return styles;
}

void Pair::modify(const std::vector<std::string>&) {
  arguments::bad("pair_style " + style() + " has no settings to modify");
}

void Pair::data_coeff(const std::vector<std::string>&, int) {
  arguments::bad("pair_style " + style() + " takes no Pair Coeffs in a data file");
}

}  // namespace tessera::md
