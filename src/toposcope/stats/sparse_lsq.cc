// stats/sparse_lsq: LSQR and CGLS for weighted sparse least squares (see sparse_lsq.h).
#include "toposcope/stats/sparse_lsq.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace toposcope::stats {
namespace {

// Â = diag(sw) · A · diag(d), applied without forming it. A must be compressed (row-major CSR).
class ScaledOperator {
 public:
  ScaledOperator(const SparseRowMatrix& a, const Eigen::VectorXd& sw, const Eigen::VectorXd& d)
      : a_(a), sw_(sw), d_(d) {}

  // out = Â v
  void Apply(const Eigen::VectorXd& v, Eigen::VectorXd& out) const {
    const int* outer = a_.outerIndexPtr();
    const int* inner = a_.innerIndexPtr();
    const double* val = a_.valuePtr();
    const Eigen::Index rows = a_.rows();
    for (Eigen::Index i = 0; i < rows; ++i) {
      double s = 0;
      for (int k = outer[i]; k < outer[i + 1]; ++k) s += val[k] * d_[inner[k]] * v[inner[k]];
      out[i] = sw_[i] * s;
    }
  }

  // out = Âᵀ u (scatter over rows, fixed order: deterministic)
  void ApplyTranspose(const Eigen::VectorXd& u, Eigen::VectorXd& out) const {
    out.setZero();
    const int* outer = a_.outerIndexPtr();
    const int* inner = a_.innerIndexPtr();
    const double* val = a_.valuePtr();
    const Eigen::Index rows = a_.rows();
    for (Eigen::Index i = 0; i < rows; ++i) {
      const double ui = sw_[i] * u[i];
      if (ui == 0) continue;
      for (int k = outer[i]; k < outer[i + 1]; ++k) out[inner[k]] += val[k] * ui;
    }
    out.array() *= d_.array();
  }

 private:
  const SparseRowMatrix& a_;
  const Eigen::VectorXd& sw_;
  const Eigen::VectorXd& d_;
};

double SafeSqrtWeight(double w) { return (std::isfinite(w) && w > 0) ? std::sqrt(w) : 0.0; }

// Row scales sw_i = sqrt(w_i) (1 without weights; 0 where the weight or b_i is not finite) and b
// with its non-finite entries as 0.
void WeighRows(const Eigen::VectorXd& b_in, const Eigen::VectorXd& row_weights, Eigen::VectorXd& sw,
               Eigen::VectorXd& b) {
  const Eigen::Index m = b_in.size();
  sw.resize(m);
  b.resize(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    sw[i] = row_weights.size() == 0 ? 1.0 : SafeSqrtWeight(row_weights[i]);
    b[i] = std::isfinite(b_in[i]) ? b_in[i] : 0.0;
    if (!std::isfinite(b_in[i])) sw[i] = 0;
  }
}

// Column scaling: d_j = 1/‖column j of W^½A‖ (1 without scaling; 0 for empty columns, which stay
// at x_j = 0). Returns ‖Â‖_F² (without the damping term).
double ScaleColumns(const SparseRowMatrix& a, const Eigen::VectorXd& sw, bool column_scaling, Eigen::VectorXd& d) {
  const Eigen::Index m = a.rows(), n = a.cols();
  Eigen::VectorXd colsq = Eigen::VectorXd::Zero(n);
  const int* outer = a.outerIndexPtr();
  const int* inner = a.innerIndexPtr();
  const double* val = a.valuePtr();
  for (Eigen::Index i = 0; i < m; ++i)
    for (int k = outer[i]; k < outer[i + 1]; ++k) {
      const double v = sw[i] * val[k];
      colsq[inner[k]] += v * v;
    }
  d.resize(n);
  double fro2 = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (!(colsq[j] > 0) || !std::isfinite(colsq[j])) {
      d[j] = 0;
    } else {
      d[j] = column_scaling ? 1.0 / std::sqrt(colsq[j]) : 1.0;
      fro2 += colsq[j] * d[j] * d[j];
    }
  }
  return fro2;
}

// What the iterations need besides the operator: the scaled right side, its norm, ‖Â‖_F (damping
// included), the damping, the tolerance and the iteration cap.
struct Iteration {
  const Eigen::VectorXd& bhat;
  double bnorm, anorm, damp, tol;
  int max_it;
};

// LSQR (Paige & Saunders 1982, with damping as in their Algorithm LSQR) from y = 0; sets
// res.iterations and res.converged.
void RunLsqr(const ScaledOperator& op, const Iteration& it_opt, Eigen::VectorXd& y, SparseLsqResult& res) {
  const double damp = it_opt.damp, tol = it_opt.tol, bnorm = it_opt.bnorm, anorm = it_opt.anorm;
  Eigen::VectorXd tmp_m(it_opt.bhat.size()), tmp_n(y.size());
  Eigen::VectorXd u = it_opt.bhat;
  double beta = bnorm;
  u /= beta;
  Eigen::VectorXd v(y.size());
  op.ApplyTranspose(u, v);
  double alpha = v.norm();
  if (alpha == 0) {  // b̂ orthogonal to range(Â): x = 0 is the answer
    res.converged = true;
    return;
  }
  v /= alpha;
  Eigen::VectorXd w = v;
  double phibar = beta, rhobar = alpha;
  for (int it = 1; it <= it_opt.max_it; ++it) {
    res.iterations = it;
    op.Apply(v, tmp_m);
    u = tmp_m - alpha * u;
    beta = u.norm();
    if (beta > 0) u /= beta;
    op.ApplyTranspose(u, tmp_n);
    v = tmp_n - beta * v;
    alpha = v.norm();
    if (alpha > 0) v /= alpha;
    double rhobar1 = rhobar, psi = 0;
    if (damp > 0) {
      rhobar1 = std::hypot(rhobar, damp);
      const double c1 = rhobar / rhobar1, s1 = damp / rhobar1;
      psi = s1 * phibar;
      phibar = c1 * phibar;
    }
    const double rho = std::hypot(rhobar1, beta);
    const double c = rhobar1 / rho, s = beta / rho;
    const double theta = s * alpha;
    rhobar = -c * alpha;
    const double phi = c * phibar;
    phibar = s * phibar;
    y += (phi / rho) * w;
    w = v - (theta / rho) * w;
    const double rnorm = std::hypot(phibar, psi);
    const double arnorm = alpha * std::abs(s * phi);  // ‖Âᵀr̂‖ estimate (Paige & Saunders)
    if (rnorm <= tol * bnorm || arnorm <= tol * anorm * rnorm || alpha == 0 || beta == 0) {
      res.converged = true;
      break;
    }
  }
}

// CGLS: CG on (ÂᵀÂ + λ²I) y = Âᵀb̂ with the normal matrix applied as Âᵀ(Â p), from y = 0; sets
// res.iterations and res.converged.
void RunCgls(const ScaledOperator& op, const Iteration& it_opt, Eigen::VectorXd& y, SparseLsqResult& res) {
  const double damp = it_opt.damp, tol = it_opt.tol, bnorm = it_opt.bnorm, anorm = it_opt.anorm;
  Eigen::VectorXd tmp_m(it_opt.bhat.size());
  Eigen::VectorXd r = it_opt.bhat;
  Eigen::VectorXd s(y.size());
  op.ApplyTranspose(r, s);
  Eigen::VectorXd p = s;
  double gamma = s.squaredNorm();
  if (gamma == 0) res.converged = true;
  for (int it = 1; it <= it_opt.max_it && !res.converged; ++it) {
    res.iterations = it;
    op.Apply(p, tmp_m);
    const double delta = tmp_m.squaredNorm() + damp * damp * p.squaredNorm();
    if (!(delta > 0)) {
      res.converged = true;
      break;
    }
    const double step = gamma / delta;
    y += step * p;
    r -= step * tmp_m;
    op.ApplyTranspose(r, s);
    if (damp > 0) s -= damp * damp * y;
    const double gamma_new = s.squaredNorm();
    const double rnorm = std::sqrt(r.squaredNorm() + damp * damp * y.squaredNorm());
    if (rnorm <= tol * bnorm || std::sqrt(gamma_new) <= tol * anorm * rnorm) {
      res.converged = true;
      break;
    }
    p = s + (gamma_new / gamma) * p;
    gamma = gamma_new;
  }
}

// The solution in the caller's variables and the exact final residuals (the recurrences drift
// with loss of orthogonality).
void Finish(const ScaledOperator& op, const Iteration& it_opt, const Eigen::VectorXd& d, const Eigen::VectorXd& y,
            SparseLsqResult& res) {
  const double damp = it_opt.damp;
  Eigen::VectorXd tmp_m(it_opt.bhat.size()), tmp_n(y.size());
  res.x = d.cwiseProduct(y);
  op.Apply(y, tmp_m);
  tmp_m = it_opt.bhat - tmp_m;
  res.residual_norm = tmp_m.norm();
  res.relative_residual = res.residual_norm / it_opt.bnorm;
  if (res.residual_norm > 0) {
    op.ApplyTranspose(tmp_m, tmp_n);
    if (damp > 0) tmp_n -= damp * damp * y;
    res.normal_residual = tmp_n.norm() / (it_opt.anorm * res.residual_norm);
  }
}

}  // namespace

SparseLsqResult SolveSparseLeastSquares(const SparseRowMatrix& a_in, const Eigen::VectorXd& b_in,
                                        const Eigen::VectorXd& row_weights,
                                        const SparseLsqOptions& opt) {
  SparseLsqResult res;
  const Eigen::Index m = a_in.rows(), n = a_in.cols();
  const bool cg = opt.method == LsqMethod::kCgNormal;
  res.method = cg ? "cg-normal" : "lsqr";
  if (opt.column_scaling) res.method += "+colscale";
  const double damp = (std::isfinite(opt.damping) && opt.damping > 0) ? opt.damping : 0.0;
  if (damp > 0) res.method += "+damp";
  if (b_in.size() != m || (row_weights.size() != 0 && row_weights.size() != m)) {
    res.method = "error: dimension mismatch between A, b and the row weights";
    return res;
  }
  res.x = Eigen::VectorXd::Zero(n);
  if (m == 0 || n == 0) return res;

  // A compressed copy only when the caller's matrix is not compressed.
  SparseRowMatrix compressed;
  const SparseRowMatrix* ap = &a_in;
  if (!a_in.isCompressed()) {
    compressed = a_in;
    compressed.makeCompressed();
    ap = &compressed;
  }
  const SparseRowMatrix& a = *ap;

  Eigen::VectorXd sw, b, d;
  WeighRows(b_in, row_weights, sw, b);
  const double fro2 = ScaleColumns(a, sw, opt.column_scaling, d);
  const double anorm = std::sqrt(fro2 + damp * damp * static_cast<double>(n));
  const ScaledOperator op(a, sw, d);
  const Eigen::VectorXd bhat = sw.cwiseProduct(b);
  const double bnorm = bhat.norm();
  res.rhs_norm = bnorm;
  if (bnorm == 0 || anorm == 0) return res;
  const double tol = (std::isfinite(opt.tolerance) && opt.tolerance > 0) ? opt.tolerance : 1e-10;
  const Iteration it_opt{bhat, bnorm, anorm, damp, tol, std::max(1, opt.max_iterations)};

  Eigen::VectorXd y = Eigen::VectorXd::Zero(n);  // solution in scaled variables
  if (!cg) {
    RunLsqr(op, it_opt, y, res);
  } else {
    RunCgls(op, it_opt, y, res);
  }
  Finish(op, it_opt, d, y, res);
  return res;
}

}  // namespace toposcope::stats
