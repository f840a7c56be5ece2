// The kspace styles md_ipu has: one line per style (kspace.hpp).
#include "tessera/md/kspace.hpp"
#include "tessera/md/kspace_ewald.hpp"
#include "tessera/md/kspace_pppm.hpp"

namespace tessera::md {

const Registry<KSpace>& kspace_styles() {
  static const Registry<KSpace> styles = [] {
    Registry<KSpace> r("kspace style");
    r.add<KSpaceEwald>("ewald");
    r.add<KSpacePPPM>("pppm");
    return r;
  }();
  return styles;
}

}  // namespace tessera::md
