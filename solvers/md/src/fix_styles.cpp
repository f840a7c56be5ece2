// The fix styles md_ipu has: one line per style (fix.hpp).
#include "arguments.hpp"
#include "tessera/md/fix.hpp"
#include "tessera/md/fix_accelerate_cos.hpp"
#include "tessera/md/fix_addforce.hpp"
#include "tessera/md/fix_ave_chunk.hpp"
#include "tessera/md/fix_ave_correlate.hpp"
#include "tessera/md/fix_ave_histo.hpp"
#include "tessera/md/fix_ave_time.hpp"
#include "tessera/md/fix_aveforce.hpp"
#include "tessera/md/fix_balance.hpp"
#include "tessera/md/fix_controller.hpp"
#include "tessera/md/fix_deform.hpp"
#include "tessera/md/fix_deposit.hpp"
#include "tessera/md/fix_enforce2d.hpp"
#include "tessera/md/fix_heat.hpp"
#include "tessera/md/fix_indent.hpp"
#include "tessera/md/fix_langevin.hpp"
#include "tessera/md/fix_momentum.hpp"
#include "tessera/md/fix_nh.hpp"
#include "tessera/md/fix_nve.hpp"
#include "tessera/md/fix_press_berendsen.hpp"
#include "tessera/md/fix_print.hpp"
#include "tessera/md/fix_property_atom.hpp"
#include "tessera/md/fix_rattle.hpp"
#include "tessera/md/fix_recenter.hpp"
#include "tessera/md/fix_rigid.hpp"
#include "tessera/md/fix_setforce.hpp"
#include "tessera/md/fix_shake.hpp"
#include "tessera/md/fix_spring.hpp"
#include "tessera/md/fix_temp_berendsen.hpp"
#include "tessera/md/fix_temp_rescale.hpp"
#include "tessera/md/fix_thermal_conductivity.hpp"
#include "tessera/md/fix_vector.hpp"
#include "tessera/md/fix_viscosity.hpp"
#include "tessera/md/fix_wall.hpp"
#include "tessera/md/fix_wall_reflect.hpp"
#include "tessera/md/fix_wall_reflect_stochastic.hpp"

namespace tessera::md {

std::size_t Fix::modify(Simulation&, const std::vector<std::string>& words, std::size_t at) {
  if (words[at] == "energy" && has_energy() && at + 1 < words.size()) {
    energy_in_pe_ = arguments::yes_no("fix_modify " + id() + " energy", words[at + 1]);
    return 2;
  }
  if (words[at] == "virial" && has_virial() && at + 1 < words.size()) {
    virial_in_pressure_ = arguments::yes_no("fix_modify " + id() + " virial", words[at + 1]);
    return 2;
  }
  throw ConfigError("fix_modify " + id() + ": fix " + style() + " has no keyword '" + words[at] +
                    "' (or it lacks its value)");
}

const Registry<Fix, const FixArguments&>& fix_styles() {
  static const Registry<Fix, const FixArguments&> styles = [] {
    Registry<Fix, const FixArguments&> r("fix style");
    r.add<FixNVE>("nve");
    for (const char* nh : {"nvt", "npt", "nph", "nvt/sllod"})
      r.add(nh, [nh](const FixArguments& a) -> std::unique_ptr<Fix> {
        return std::make_unique<FixNH>(a, nh);
      });
    r.add<FixLangevin>("langevin");
    r.add<FixEnforce2D>("enforce2d");
    r.add<FixSetForce>("setforce");
    r.add<FixBalance>("balance");
    r.add<FixAddForce>("addforce");
    r.add<FixAccelerateCos>("accelerate/cos");
    r.add<FixAveChunk>("ave/chunk");
    r.add<FixAveCorrelate>("ave/correlate");
    r.add<FixAveHisto>("ave/histo");
    r.add<FixAveTime>("ave/time");
    r.add<FixController>("controller");
    r.add<FixHeat>("heat");
    r.add<FixThermalConductivity>("thermal/conductivity");
    r.add<FixVector>("vector");
    r.add<FixViscosity>("viscosity");
    r.add<FixAveForce>("aveforce");
    r.add<FixTempRescale>("temp/rescale");
    r.add<FixWallReflect>("wall/reflect");
    r.add<FixWallReflectStochastic>("wall/reflect/stochastic");
    r.add<FixIndent>("indent");
    r.add<FixTempBerendsen>("temp/berendsen");
    r.add<FixMomentum>("momentum");
    r.add<FixPressBerendsen>("press/berendsen");
    r.add<FixPrint>("print");
    r.add<FixRecenter>("recenter");
    r.add<FixDeform>("deform");
    r.add<FixDeposit>("deposit");
    for (const char* rigid : {"rigid", "rigid/nve"})
      r.add(rigid, [rigid](const FixArguments& a) -> std::unique_ptr<Fix> {
        return std::make_unique<FixRigid>(a, rigid);
      });
    r.add<FixShake>("shake");
    r.add<FixRattle>("rattle");
    r.add<FixPropertyAtom>("property/atom");
    r.add<FixSpring>("spring");
    using Kind = FixWall::Kind;
    for (const auto& wall :
         {std::pair{"wall/lj93", Kind::lj93}, std::pair{"wall/lj126", Kind::lj126},
          std::pair{"wall/lj1043", Kind::lj1043}, std::pair{"wall/harmonic", Kind::harmonic}})
      r.add(wall.first, [kind = wall.second](const FixArguments& a) -> std::unique_ptr<Fix> {
        return std::make_unique<FixWall>(a, kind);
      });
    return r;
  }();
  return styles;
}

}  // namespace tessera::md
