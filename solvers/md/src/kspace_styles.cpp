// The kspace styles md_ipu has: one line per style (kspace.hpp).
#include "tessera/md/kspace.hpp"
#include "tessera/md/kspace_ewald.hpp"

namespace tessera::md {

const Registry<KSpace>& kspace_styles() {
  static const Registry<KSpace> styles = [] {
    Registry<KSpace> r("kspace style");
    r.add<KSpaceEwald>("ewald");
    return r;
  }();
  return styles;
}

}  // namespace tessera::md
