// Where the user's JAX is, found by the environment's layout on disk: no
// interpreter of the environment is started (an untrusted workspace's
// `.venv/bin/python` is just a file someone else wrote).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pallas::knowledge {

struct JaxLocation {
  std::string sitePackages; // the directory that holds jax/
  std::string version;      // jax/version.py's _version, else the dist-info's name
  std::string environment;  // the environment's root (…/.venv, $CONDA_PREFIX, …)
  std::string foundVia;     // "python setting", "$VIRTUAL_ENV", "workspace .venv", …
};

struct EnvironmentQuery {
  // An interpreter the user named (setting, `--python`, config): its
  // environment (<env>/bin/python -> <env>) is searched first.
  std::string configuredPython;
  std::vector<std::string> workspaceRoots; // their .venv, venv, env
  bool processEnvironment = true;          // $VIRTUAL_ENV, $CONDA_PREFIX
};

// Environment roots to search, in order, each with how it was chosen.
std::vector<std::pair<std::string, std::string>> candidateEnvironments(const EnvironmentQuery& q);

// The site-packages directories of one environment root that hold a jax
// package: venv/uv/conda (<env>/lib/python3.*/site-packages, also lib64),
// Windows-style conda (<env>/Lib/site-packages), or the root itself when it is
// a site-packages directory (an unpacked wheel).
std::vector<std::string> sitePackagesWithJax(const std::string& environment);

// The JAX version of a site-packages directory, read from its files only.
std::optional<std::string> jaxVersionAt(const std::string& sitePackages);

// A version as text that is safe in a file name and a message: 1 to 63
// letters, digits and `.+-_` (what JAX's versions are made of).
bool isSafeVersionText(const std::string& v);

// The first environment of `q` that holds JAX with a readable version.
std::optional<JaxLocation> locateJax(const EnvironmentQuery& q);

} // namespace pallas::knowledge
