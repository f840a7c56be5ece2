// The compute styles md_ipu has: one line per style (compute.hpp).
#include "tessera/md/compute.hpp"
#include "tessera/md/compute_adf.hpp"
#include "tessera/md/compute_chunk_atom.hpp"
#include "tessera/md/compute_com.hpp"
#include "tessera/md/compute_heat_flux.hpp"
#include "tessera/md/compute_ke.hpp"
#include "tessera/md/compute_ke_atom.hpp"
#include "tessera/md/compute_msd.hpp"
#include "tessera/md/compute_orientorder_atom.hpp"
#include "tessera/md/compute_pe.hpp"
#include "tessera/md/compute_pe_atom.hpp"
#include "tessera/md/compute_pressure.hpp"
#include "tessera/md/compute_property_atom.hpp"
#include "tessera/md/compute_rdf.hpp"
#include "tessera/md/compute_reduce.hpp"
#include "tessera/md/compute_stress_atom.hpp"
#include "tessera/md/compute_temp.hpp"
#include "tessera/md/compute_temp_deform.hpp"
#include "tessera/md/compute_temp_partial.hpp"
#include "tessera/md/compute_temp_ramp.hpp"
#include "tessera/md/compute_vacf.hpp"
#include "tessera/md/compute_viscosity_cos.hpp"

namespace tessera::md {

const Registry<Compute, const ComputeArguments&>& compute_styles() {
  static const Registry<Compute, const ComputeArguments&> styles = [] {
    Registry<Compute, const ComputeArguments&> r("compute style");
    r.add<ComputeADF>("adf");
    r.add<ComputeChunkAtom>("chunk/atom");
    r.add<ComputeCOM>("com");
    r.add<ComputeHeatFlux>("heat/flux");
    r.add<ComputeKE>("ke");
    r.add<ComputeKEAtom>("ke/atom");
    r.add<ComputeOrientOrderAtom>("orientorder/atom");
    r.add<ComputeMSD>("msd");
    r.add<ComputePE>("pe");
    r.add<ComputePEAtom>("pe/atom");
    r.add<ComputePressure>("pressure");
    r.add<ComputePropertyAtom>("property/atom");
    r.add<ComputeRDF>("rdf");
    r.add<ComputeReduce>("reduce");
    r.add<ComputeStressAtom>("stress/atom");
    r.add<ComputeTemp>("temp");
    r.add<ComputeTempPartial>("temp/partial");
    r.add<ComputeTempDeform>("temp/deform");
    r.add<ComputeTempRamp>("temp/ramp");
    r.add<ComputeViscosityCos>("viscosity/cos");
    r.add<ComputeTempRegion>("temp/region");
    r.add<ComputeVACF>("vacf");
    return r;
  }();
  return styles;
}

}  // namespace tessera::md
