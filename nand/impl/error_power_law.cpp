// RBER as a sum of power laws, one per stress:
//
//   RBER = epsilon + alpha*N^k + beta*N^m*t^n + gamma*N^p*R^q
//
// N: P/E cycles, t: retention in days, R: reads since the block was erased.
// The first three terms are the model of Mielke et al. (IRPS 2008) in the
// form Liu, Yang and Wu fitted to 2X nm MLC (FAST 2012, "Optimizing NAND
// flash-based SSDs via retention relaxation"); read disturb grows as a power
// of the read count with a slope that rises with wear (Cai et al., DSN
// 2015; Hetzler's MLC error surface), the last term. The coefficients are
// the drive config's (nand.errors), each with its source there. SLC-mode
// blocks keep a wider margin between their two states; `slc_scale`
// multiplies their RBER.
#include <cmath>

#include "nand/impl/error_models.h"
#include "sim/config.h"
#include "sim/params.h"

namespace ssdtwin {

namespace {

class PowerLawErrors : public ErrorModel {
 public:
  explicit PowerLawErrors(const Params& n)
      : epsilon_(n.real("epsilon")),
        alpha_(n.real("alpha")),
        k_(n.real("k")),
        beta_(n.real("beta")),
        m_(n.real("m")),
        n_(n.real("n")),
        gamma_(n.real("gamma")),
        p_(n.real("p")),
        q_(n.real("q")),
        slc_scale_(n.real("slc_scale")) {}

  double rber(const CellWear& w) const override {
    const double N = w.pe_cycles + age_pe_cycles;
    const double t = w.retention_days + age_retention_days;
    double r = epsilon_ + alpha_ * pow0(N, k_) + beta_ * pow0(N, m_) * pow0(t, n_) +
               gamma_ * pow0(N, p_) * pow0(w.reads, q_);
    if (w.mode == CellMode::kSlc) r *= slc_scale_;
    return r < 1 ? r : 1;
  }

 private:
  // x^e with 0^0 = 1 (a term with exponent 0 does not depend on x).
  static double pow0(double x, double e) { return e == 0 ? 1 : (x <= 0 ? 0 : std::pow(x, e)); }
  double epsilon_, alpha_, k_, beta_, m_, n_, gamma_, p_, q_, slc_scale_;
};

}  // namespace

const ParamSection& power_law_error_params() {
  static const ParamSection kSection{
      "drive.nand.errors.power_law",
      "The power_law model's coefficients: RBER = epsilon + alpha*N^k + beta*N^m*t^n + "
      "gamma*N^p*R^q, with N the P/E cycles, t the retention in days and R the reads since the "
      "block's erase.",
      {
          param::real("epsilon", nullptr, 0, 1, "", "RBER of a fresh block (the floor)"),
          param::real("alpha", "0", 0, 1, "", "wear term's coefficient"),
          param::real("k", "0", 0, 10, "", "wear term's exponent of N"),
          param::real("beta", "0", 0, 1, "", "retention term's coefficient"),
          param::real("m", "0", 0, 10, "", "retention term's exponent of N"),
          param::real("n", "0", 0, 10, "", "retention term's exponent of t"),
          param::real("gamma", "0", 0, 1, "", "read-disturb term's coefficient"),
          param::real("p", "0", 0, 10, "", "read-disturb term's exponent of N"),
          param::real("q", "1", 0, 10, "", "read-disturb term's exponent of R"),
          param::real("slc_scale", "1", 0, 1, "",
                      "factor on the RBER of SLC-mode blocks, whose two states keep a wider "
                      "margin"),
      }};
  return kSection;
}

std::unique_ptr<ErrorModel> make_power_law_errors(const ConfigNode& node) {
  return std::make_unique<PowerLawErrors>(Params(node, power_law_error_params()));
}

}  // namespace ssdtwin
