// stats/spectral: spectral clustering of a symmetric non-negative affinity matrix, the number of
// clusters chosen by the eigengap of the normalised Laplacian (Ng-Jordan-Weiss embedding, then
// k-means++). Dense (Eigen) for small matrices; sparse (connected components, then Spectra's
// Lanczos per large component) for cluster-wide matrices.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <cstdint>
#include <string>
#include <vector>

namespace toposcope::stats {

struct SpectralOptions {
  int max_clusters = 32;          // upper bound on k per connected component
  double min_eigengap = 0.2;      // a gap below this means "one cluster"
  double isolated_degree = 1e-9;  // vertices with degree below this are their own cluster
  uint64_t seed = 1;              // for k-means++ (deterministic)
  int kmeans_restarts = 8;
  int dense_limit = 512;          // components up to this size use a dense eigen-solver
};

struct SpectralResult {
  int k = 0;                         // number of clusters found
  std::vector<int> labels;           // per vertex, 0..k-1, numbered by first appearance
  std::vector<double> eigenvalues;   // smallest Laplacian eigenvalues of the largest component
  double eigengap = 0;               // the gap that chose k in the largest component (the largest
                                     // gap, also when it was below min_eigengap and k = 1)
  int components = 0;                // connected components (isolated vertices included)
  std::vector<std::string> notes;    // e.g. a component whose eigen-solver did not converge
};

// Both functions symmetrise the input ((W + W^T) / 2), ignore the diagonal and treat negative or
// NaN weights as 0; every connected component is clustered on its own (at most max_clusters
// clusters each) and labels are renumbered globally by first appearance. Each returns the clusters
// with the eigen-solver's notes; never fails: a non-square matrix gives k = 0, no labels and a note.
// Clusters a dense symmetric affinity matrix (diagonal ignored); always the dense eigen-solver.
SpectralResult SpectralClusterDense(const Eigen::MatrixXd& affinity, const SpectralOptions& opt = {});
// Clusters a sparse symmetric affinity matrix (diagonal ignored). Labels are deterministic.
SpectralResult SpectralClusterSparse(const Eigen::SparseMatrix<double>& affinity,
                                     const SpectralOptions& opt = {});

}  // namespace toposcope::stats
