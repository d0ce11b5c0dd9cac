// KnowledgeBase against the real bundled table and the real extractor.
#include "pallas/knowledge/KnowledgeBase.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace fs = std::filesystem;
using pallas::knowledge::DischargeStatus;
using pallas::knowledge::GpuInterpretHandling;
using pallas::knowledge::KnowledgeBase;

namespace {

fs::path tempDir(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("pallas-knowledge-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(KnowledgeBase, BundledTableLoadsWithInlineMgpuFacts) {
  auto loaded = KnowledgeBase::bundled();
  ASSERT_TRUE(loaded) << loaded.error;
  const KnowledgeBase& kb = *loaded.base;
  EXPECT_EQ(kb.jaxVersion(), "0.10.2");
  const auto* p = kb.primitive("inline_mgpu_p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->discharge, DischargeStatus::Raises);
  EXPECT_EQ(p->dischargeMessage, "inline_mgpu_p does not support discharge.");
  EXPECT_FALSE(p->cpuLowering);
  EXPECT_EQ(p->gpuInterpret, GpuInterpretHandling::Fallback);
  auto prims = kb.primitivesOf("plgpu.inline_mgpu");
  ASSERT_EQ(prims.size(), 1u);
  EXPECT_EQ(prims[0]->name, "inline_mgpu_p");
  EXPECT_TRUE(kb.hasInterpretGpuOption("skip_floating_point_ops"));
  EXPECT_FALSE(kb.hasInterpretGpuOption("no_such_option"));
}

// Issue 33's facts, as the bundled 0.10.2 table carries them.
TEST(KnowledgeBase, LoadsCustomDerivativesAllocationsAndTheSmemModel) {
  auto loaded = KnowledgeBase::bundled();
  ASSERT_TRUE(loaded) << loaded.error;
  const KnowledgeBase& kb = *loaded.base;
  const auto* relu = kb.customDerivative("jax.nn.relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->binds, "custom_jvp_call");
  EXPECT_EQ(relu->wrapper, "jax.custom_jvp");
  EXPECT_FALSE(relu->conditional);
  EXPECT_EQ(relu->inlineExpr, "jnp.maximum(x, 0)");
  const auto* softplus = kb.customDerivative("jax.nn.softplus");
  ASSERT_NE(softplus, nullptr);
  ASSERT_GE(softplus->via.size(), 2u);
  EXPECT_EQ(softplus->via[1], "jnp.logaddexp");
  EXPECT_EQ(kb.customDerivative("jax.nn.gelu"), nullptr);
  EXPECT_EQ(kb.higherOrderBinds("jax.custom_jvp"), std::vector<std::string>{"custom_jvp_call"});
  const auto* p = kb.primitive("custom_jvp_call");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->getBindParamsOverridden);
  EXPECT_EQ(kb.gpuInterpretAllocates("kernel"), std::vector<std::string>{"barrier"});
  EXPECT_EQ(kb.gpuInterpretAllocates("pallasCall"), std::vector<std::string>{});
  EXPECT_FALSE(kb.gpuInterpretAllocates("nothing"));
  ASSERT_NE(kb.mosaicGpuSmemModel(), nullptr);
  EXPECT_EQ((*kb.mosaicGpuSmemModel())["siblingsCombine"]["value"], "max");
}

TEST(KnowledgeBase, FormatsErrorTemplates) {
  auto loaded = KnowledgeBase::bundled();
  ASSERT_TRUE(loaded) << loaded.error;
  EXPECT_EQ(loaded.base->formatError("noDischargeRule", {"copy_gmem_to_smem"}).value_or(""),
            "No state discharge rule implemented for primitive: copy_gmem_to_smem");
  EXPECT_EQ(loaded.base->formatError("missingLowering", {"inline_mgpu_p", "cpu"}).value_or(""),
            "MLIR translation rule for primitive 'inline_mgpu_p' not found for platform cpu");
  EXPECT_FALSE(loaded.base->formatError("no-such-template", {}).has_value());
}

TEST(KnowledgeBase, LoadsDischargeFunctionalFormsAndMosaicRules) {
  auto loaded = KnowledgeBase::bundled();
  ASSERT_TRUE(loaded) << loaded.error;
  const KnowledgeBase& kb = *loaded.base;
  const auto* wgmmaRef = kb.primitive("wgmma_ref");
  ASSERT_NE(wgmmaRef, nullptr);
  EXPECT_EQ(wgmmaRef->discharge, DischargeStatus::Exists);
  EXPECT_FALSE(wgmmaRef->partialDischarge);
  EXPECT_EQ(wgmmaRef->dischargeBinds, std::vector<std::string>{"wgmma"});
  ASSERT_TRUE(wgmmaRef->dischargeWrites.has_value());
  EXPECT_EQ(*wgmmaRef->dischargeWrites, std::vector<int>{0});
  const auto* wgmma = kb.primitive("wgmma");
  ASSERT_NE(wgmma, nullptr);
  EXPECT_FALSE(wgmma->cpuLowering);
  // GPU interpret mode's wgmma and SMEM -> GMEM copy callbacks read Ref
  // transforms as indexing, unchecked; its reads (get) check them.
  EXPECT_EQ(wgmmaRef->gpuInterpretIndexingAttribute, "indices");
  ASSERT_NE(kb.primitive("copy_smem_to_gmem"), nullptr);
  EXPECT_EQ(kb.primitive("copy_smem_to_gmem")->gpuInterpretIndexingAttribute, "indices");
  ASSERT_NE(kb.primitive("get"), nullptr);
  EXPECT_EQ(kb.primitive("get")->gpuInterpretIndexingAttribute, "");
  // State discharge applies indexing, bitcasts and reshapes; anything else
  // (a TransposeTransform) raises "Unsupported transform".
  const auto* unsupported = kb.errorTemplate("unsupportedRefTransform");
  ASSERT_NE(unsupported, nullptr);
  ASSERT_TRUE(unsupported->handledCases.has_value());
  EXPECT_EQ(*unsupported->handledCases,
            (std::vector<std::string>{"BitcastTransform", "NDIndexer", "ReshapeTransform"}));
  // Partial rules see which operands are discharged: no written operands.
  const auto* scoped = kb.primitive("run_scoped");
  ASSERT_NE(scoped, nullptr);
  EXPECT_FALSE(scoped->dischargeWrites.has_value());

  const auto* recip = kb.primitive("reciprocal");
  ASSERT_NE(recip, nullptr);
  EXPECT_TRUE(recip->mosaicGpuKnown);
  EXPECT_TRUE(recip->mosaicGpuSemantics.empty());
  EXPECT_EQ(KnowledgeBase::hasMosaicGpuRule(*recip, {"Lane", "Warpgroup"}, {"Warpgroup", "Warp"}),
            std::optional<bool>(false));
  const auto* test = kb.primitive("barrier_test");
  ASSERT_NE(test, nullptr);
  EXPECT_EQ(KnowledgeBase::hasMosaicGpuRule(*test, {"Lane"}, {"Warpgroup"}),
            std::optional<bool>(false));
  EXPECT_EQ(KnowledgeBase::hasMosaicGpuRule(*test, {"Lane"}, {"Warp"}), std::optional<bool>(true));
  const auto* acc = kb.refIndexing("plgpu.ACC");
  ASSERT_NE(acc, nullptr);
  ASSERT_TRUE(acc->getitem.has_value());
  EXPECT_EQ(*acc->getitem, std::vector<std::string>{"wgmma_accumulator_deref_p"});
  EXPECT_EQ(kb.refIndexing("plgpu.SMEM"), nullptr);
  EXPECT_TRUE(kb.api("pl.broadcast_to")->returnsBeforeBind);
  EXPECT_FALSE(kb.api("pl.reciprocal")->returnsBeforeBind);
}

TEST(KnowledgeBase, OlderTablesWithoutTheNewFieldsLoadAsUnknown) {
  nlohmann::json t = {
      {"schemaVersion", pallas::knowledge::kSchemaVersion},
      {"jax_version", "0.0.1"},
      {"apis", {{"pl.x", {{"kind", "function"}, {"binds", {"p"}}}}}},
      {"primitives",
       {{"p", {{"name", "p"}, {"discharge", {{"status", "exists"}, {"kind", "full"}}}}},
        {"q", {{"name", "q"}, {"mosaicGpuLowering", nullptr}}}}}};
  auto loaded = KnowledgeBase::fromJson(t, "inline");
  ASSERT_TRUE(loaded) << loaded.error;
  const auto* p = loaded.base->primitive("p");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->dischargeBinds.empty());
  EXPECT_FALSE(p->dischargeWrites.has_value());
  EXPECT_FALSE(p->mosaicGpuKnown);
  EXPECT_FALSE(KnowledgeBase::hasMosaicGpuRule(*p, {"Lane"}, {"Warpgroup"}).has_value());
  EXPECT_FALSE(loaded.base->primitive("q")->mosaicGpuKnown);
  EXPECT_FALSE(loaded.base->api("pl.x")->returnsBeforeBind);
}

TEST(KnowledgeBase, RejectsBadInput) {
  fs::path dir = tempDir("bad");
  std::ofstream(dir / "broken.json") << "{not json";
  std::ofstream(dir / "schema.json") << R"({"schemaVersion": 99})";
  EXPECT_FALSE(KnowledgeBase::fromFile((dir / "broken.json").string()));
  auto schema = KnowledgeBase::fromFile((dir / "schema.json").string());
  EXPECT_FALSE(schema);
  EXPECT_NE(schema.error.find("schema version 99"), std::string::npos);
  EXPECT_FALSE(KnowledgeBase::fromFile((dir / "missing.json").string()));
  fs::remove_all(dir);
}

TEST(KnowledgeBase, ForPythonExtractsThenCaches) {
  fs::path cache = tempDir("cache");
  auto first = KnowledgeBase::forPython(PALLAS_TEST_PYTHON, cache.string());
  ASSERT_TRUE(first) << first.error;
  EXPECT_TRUE(first.fallbackReason.empty()) << first.fallbackReason;
  fs::path cached = cache / ("knowledge-" + first.base->jaxVersion() + ".json");
  EXPECT_TRUE(fs::exists(cached));
  EXPECT_EQ(first.base->source(), cached.string());
  // Second call: served from the cache (a marker in the cached file proves it).
  nlohmann::json t;
  std::ifstream(cached) >> t;
  t["apis"]["test.marker"] = {{"kind", "function"}, {"binds", nlohmann::json::array()}};
  std::ofstream(cached) << t.dump();
  auto second = KnowledgeBase::forPython(PALLAS_TEST_PYTHON, cache.string());
  ASSERT_TRUE(second);
  EXPECT_NE(second.base->api("test.marker"), nullptr);
  fs::remove_all(cache);
}

TEST(KnowledgeBase, ForPythonFallsBackWithReason) {
  fs::path cache = tempDir("fallback");
  auto missing = KnowledgeBase::forPython("/nonexistent/python3", cache.string());
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing.fallbackReason.empty());
  EXPECT_EQ(missing.base->source(), KnowledgeBase::bundledPath());

  fs::path slow = cache / "slow-python";
  std::ofstream(slow) << "#!/bin/sh\nsleep 30\n";
  fs::permissions(slow, fs::perms::owner_all);
  auto timedOut = KnowledgeBase::forPython(slow.string(), cache.string(), std::chrono::seconds(1));
  ASSERT_TRUE(timedOut);
  EXPECT_NE(timedOut.fallbackReason.find("timed out"), std::string::npos)
      << timedOut.fallbackReason;
  fs::remove_all(cache);
}

// Issue 14, item 4: a table with a wrongly typed field (a cache written by
// another version, or damaged) is an error to report, never an exception
// (one escaping the server's worker thread aborted it).
TEST(KnowledgeBase, WronglyTypedFieldsAreAnErrorNotAnException) {
  for (const char* text :
       {R"({"schemaVersion": "1"})",
        R"({"schemaVersion": 1, "apis": {"pl.x": {"returnsBeforeBind": "yes"}}})",
        R"({"schemaVersion": 1, "primitives": {"p": {"cpuLowering": 3}}})",
        R"({"schemaVersion": 1, "errorTemplates": {"e": {"found": true, "line": "7"}}})"}) {
    KnowledgeBase::Loaded loaded;
    EXPECT_NO_THROW(loaded = KnowledgeBase::fromJson(nlohmann::json::parse(text), "t.json"))
        << text;
    EXPECT_FALSE(loaded) << text;
    EXPECT_NE(loaded.error.find("wrongly typed"), std::string::npos) << loaded.error;
    EXPECT_NE(loaded.error.find("t.json"), std::string::npos) << loaded.error;
  }
}

void fakeJax(const fs::path& site, const std::string& version) {
  fs::create_directories(site / "jax");
  std::ofstream(site / "jax" / "__init__.py") << "";
  if (!version.empty())
    std::ofstream(site / "jax" / "version.py") << "_version = \"" << version << "\"\n";
}

// Issue 18: the user's JAX is found by the environment's layout, no
// interpreter started.
TEST(JaxEnvironment, LocatesJaxByLayout) {
  using namespace pallas::knowledge;
  fs::path dir = tempDir("layout");
  // venv / uv: <env>/lib/python3.X/site-packages; the newest Python first.
  fakeJax(dir / "venv/lib/python3.12/site-packages", "0.11.1");
  fakeJax(dir / "venv/lib/python3.13/site-packages", "0.11.2");
  EXPECT_EQ(sitePackagesWithJax((dir / "venv").string()).front(),
            (dir / "venv/lib/python3.13/site-packages").string());
  // Windows-style conda, and a bare site-packages (an unpacked wheel).
  fakeJax(dir / "conda/Lib/site-packages", "0.10.2");
  EXPECT_EQ(sitePackagesWithJax((dir / "conda").string()).size(), 1u);
  fakeJax(dir / "wheel", "0.11.2");
  EXPECT_EQ(sitePackagesWithJax((dir / "wheel").string()).front(), (dir / "wheel").string());
  // The version from the dist-info when version.py does not say.
  fakeJax(dir / "distinfo/lib/python3.12/site-packages", "");
  fs::create_directories(dir / "distinfo/lib/python3.12/site-packages/jax-0.12.0.dist-info");
  EXPECT_EQ(jaxVersionAt((dir / "distinfo/lib/python3.12/site-packages").string()).value_or(""),
            "0.12.0");
  // The configured interpreter's environment before the workspace's .venv.
  fs::create_directories(dir / "ws");
  fs::create_directory_symlink(dir / "conda", dir / "ws/.venv");
  EnvironmentQuery q;
  q.workspaceRoots = {(dir / "ws").string()};
  q.processEnvironment = false;
  auto found = locateJax(q);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->version, "0.10.2");
  EXPECT_EQ(found->foundVia, "workspace .venv");
  q.configuredPython = (dir / "venv/bin/python").string();
  found = locateJax(q);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->version, "0.11.2");
  EXPECT_EQ(found->foundVia, "python setting");
  EnvironmentQuery none;
  none.workspaceRoots = {(dir / "nowhere").string()};
  none.processEnvironment = false;
  EXPECT_FALSE(locateJax(none));
  fs::remove_all(dir);
}

// Issue 18: an environment with JAX 0.11.2 gets the bundled 0.11.2 table and
// its default lowering semantics (Warpgroup; 0.10.2: Lane).
TEST(KnowledgeBase, ForEnvironmentUsesTheTableOfTheEnvironmentsVersion) {
  fs::path dir = tempDir("forenv");
  for (auto [version, lowering] : {std::pair("0.11.2", "Warpgroup"), std::pair("0.10.2", "Lane")}) {
    fs::remove_all(dir / "env");
    fakeJax(dir / "env/lib/python3.12/site-packages", version);
    pallas::knowledge::KnowledgeRequest r;
    r.environment.configuredPython = (dir / "env/bin/python").string();
    r.environment.processEnvironment = false;
    r.cacheDir = (dir / "cache").string();
    auto loaded = KnowledgeBase::forEnvironment(r);
    ASSERT_TRUE(loaded) << loaded.error;
    EXPECT_EQ(loaded.base->jaxVersion(), version);
    EXPECT_EQ(loaded.base->defaultLoweringSemantics(), lowering);
    EXPECT_EQ(loaded.how.rfind(std::string("bundled table for JAX ") + version, 0), 0u)
        << loaded.how;
  }
  fs::remove_all(dir);
}

// What went wrong on the way to the table is kept as notes (doctor and the
// server's log show them), whichever table is loaded in the end: here the
// cache folder cannot be made (a file is in the way).
TEST(KnowledgeBase, ForEnvironmentKeepsTheNotesOfWhatFailedOnTheWay) {
  fs::path dir = tempDir("notes");
  fakeJax(dir / "env/lib/python3.12/site-packages", "0.99.0"); // no bundled table
  std::ofstream(dir / "not-a-folder") << "x";
  pallas::knowledge::KnowledgeRequest r;
  r.environment.configuredPython = (dir / "env/bin/python").string();
  r.environment.processEnvironment = false;
  r.cacheDir = (dir / "not-a-folder" / "cache").string();
  auto loaded = KnowledgeBase::forEnvironment(r);
  bool noted = std::any_of(loaded.notes.begin(), loaded.notes.end(), [](const std::string& n) {
    return n.rfind("knowledge cache unusable", 0) == 0;
  });
  EXPECT_TRUE(noted) << loaded.how;
  fs::remove_all(dir);
}

} // namespace
