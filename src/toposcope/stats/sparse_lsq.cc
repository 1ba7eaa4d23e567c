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

  Eigen::VectorXd sw(m), b(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    sw[i] = row_weights.size() == 0 ? 1.0 : SafeSqrtWeight(row_weights[i]);
    b[i] = std::isfinite(b_in[i]) ? b_in[i] : 0.0;
    if (!std::isfinite(b_in[i])) sw[i] = 0;
  }
  // Column scaling: d_j = 1/‖column j of W^½A‖ (0 for empty columns, which stay at x_j = 0).
  Eigen::VectorXd colsq = Eigen::VectorXd::Zero(n);
  {
    const int* outer = a.outerIndexPtr();
    const int* inner = a.innerIndexPtr();
    const double* val = a.valuePtr();
    for (Eigen::Index i = 0; i < m; ++i)
      for (int k = outer[i]; k < outer[i + 1]; ++k) {
        const double v = sw[i] * val[k];
        colsq[inner[k]] += v * v;
      }
  }
  Eigen::VectorXd d(n);
  double fro2 = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (!(colsq[j] > 0) || !std::isfinite(colsq[j])) {
      d[j] = 0;
    } else {
      d[j] = opt.column_scaling ? 1.0 / std::sqrt(colsq[j]) : 1.0;
      fro2 += colsq[j] * d[j] * d[j];
    }
  }
  const double anorm = std::sqrt(fro2 + damp * damp * static_cast<double>(n));
  const ScaledOperator op(a, sw, d);
  const Eigen::VectorXd bhat = sw.cwiseProduct(b);
  const double bnorm = bhat.norm();
  res.rhs_norm = bnorm;
  if (bnorm == 0 || anorm == 0) return res;
  const double tol = (std::isfinite(opt.tolerance) && opt.tolerance > 0) ? opt.tolerance : 1e-10;
  const int max_it = std::max(1, opt.max_iterations);

  Eigen::VectorXd y = Eigen::VectorXd::Zero(n);  // solution in scaled variables
  Eigen::VectorXd tmp_m(m), tmp_n(n);
  if (!cg) {
    // LSQR (Paige & Saunders 1982, with damping as in their Algorithm LSQR).
    Eigen::VectorXd u = bhat;
    double beta = bnorm;
    u /= beta;
    Eigen::VectorXd v(n);
    op.ApplyTranspose(u, v);
    double alpha = v.norm();
    if (alpha == 0) {  // b̂ orthogonal to range(Â): x = 0 is the answer
      res.converged = true;
    } else {
      v /= alpha;
      Eigen::VectorXd w = v;
      double phibar = beta, rhobar = alpha;
      for (int it = 1; it <= max_it; ++it) {
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
  } else {
    // CGLS: CG on (ÂᵀÂ + λ²I) y = Âᵀb̂ with the normal matrix applied as Âᵀ(Â p).
    Eigen::VectorXd r = bhat;
    Eigen::VectorXd s(n);
    op.ApplyTranspose(r, s);
    Eigen::VectorXd p = s;
    double gamma = s.squaredNorm();
    if (gamma == 0) res.converged = true;
    for (int it = 1; it <= max_it && !res.converged; ++it) {
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

  res.x = d.cwiseProduct(y);
  // Exact final residuals (the recurrences drift with loss of orthogonality).
  op.Apply(y, tmp_m);
  tmp_m = bhat - tmp_m;
  res.residual_norm = tmp_m.norm();
  res.relative_residual = res.residual_norm / bnorm;
  if (res.residual_norm > 0) {
    op.ApplyTranspose(tmp_m, tmp_n);
    if (damp > 0) tmp_n -= damp * damp * y;
    res.normal_residual = tmp_n.norm() / (anorm * res.residual_norm);
  }
  return res;
}

}  // namespace toposcope::stats
