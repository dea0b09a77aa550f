// import_export_test.cpp: GPT-2s in other tools' files, in and out (run/import.h, run/export.h),
// against tools/make_gpt2_fixtures.py: one small random GPT-2 written by PyTorch in the Hugging
// Face hub's layout, save_pretrained's (with and without the tied head), llm.c's .bin and
// nanoGPT's own state_dict, with its logits from a GPT-2 forward written in PyTorch.
//   - each import gives a model whose logits and loss equal PyTorch's to 1e-5;
//   - export writes llm.c's file byte for byte as PyTorch wrote it, nanoGPT's state_dict with its
//     exact keys, shapes and numbers, and save_pretrained's tensors;
//   - export -> import round trips are bit-exact in every format;
//   - missing, unknown and misshapen tensors, a truncated file, and an llm.c file of another
//     magic or version are one-line errors naming the problem.
//   - configs' numbers follow the training config's rules (no int wrap-around), and every
//     config error is one line naming the file and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/safetensors.h"
#include "io/checkpoint.h"
#include "nn/gpt.h"
#include "run/model_factory.h"
#include "test_util.h"
#include "train_cli_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;
namespace fs = std::filesystem;

namespace {

std::string fx(const std::string& rel) { return fixture_path("gpt2/" + rel); }
const std::string kTok = " --tokenizer '" + fixture_path("gpt2/tok500") + "'";

CliResult import_model(const std::string& format, const std::string& input, const std::string& out,
                       const std::string& extra = "") {
  return run_cli("import --format " + format + " --input '" + input + "' --out '" + out + "'" +
                 kTok + extra);
}

// The checkpoint's model on the fixture's batch: logits and loss against PyTorch's (double).
void expect_pytorch_logits(const std::string& ck_path) {
  const Checkpoint ck = load_checkpoint(ck_path);
  EXPECT_TRUE(ck.weights_only);
  std::unique_ptr<LanguageModel> model = build_model(ck.cfg);
  restore_params(ck, *model, /*with_optimizer=*/false);
  const SafeTensors st = load_fixture("gpt2/logits.safetensors");
  const std::vector<int32_t> idx = st.i32("idx"), targets = st.i32("targets");
  const std::vector<int64_t> shape = st.shape("idx");
  const int B = static_cast<int>(shape[0]), T = static_cast<int>(shape[1]);
  const float loss = model->forward(idx.data(), targets.data(), B, T, nullptr);
  const std::vector<double> want = st.f64("logits");
  const Tensor logits = model->logits();
  ASSERT_EQ(static_cast<size_t>(logits.numel()), want.size());
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(logits.data[i]) - want[i]));
  EXPECT_LT(worst, 1e-5) << ck_path;
  EXPECT_NEAR(loss, st.f64("loss")[0], 1e-5) << ck_path;
}

// The tensors of two safetensors files: the same names, dtypes, shapes and bytes.
void expect_same_tensors(const SafeTensors& a, const SafeTensors& b, const std::string& what) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size()) << what;
  for (const auto& [name, t] : a.tensors) {
    ASSERT_TRUE(b.has(name)) << what << ": " << name;
    const StTensor& u = b.get(name);
    EXPECT_EQ(t.dtype, u.dtype) << what << ": " << name;
    EXPECT_EQ(t.shape, u.shape) << what << ": " << name;
    EXPECT_TRUE(t.bytes == u.bytes) << what << ": " << name;
  }
}

// A copy of a fixture safetensors with a change (written without our checksum, as PyTorch's).
std::string edited(const std::string& dir, const std::string& name, const std::string& from,
                   const std::function<void(SafeTensors&)>& change) {
  SafeTensors st = load_safetensors(from);
  change(st);
  fs::create_directories(dir + "/" + name);
  fs::copy_file(fs::path(from).parent_path() / "config.json", dir + "/" + name + "/config.json",
                fs::copy_options::overwrite_existing);
  save_safetensors(dir + "/" + name + "/model.safetensors", st, /*add_checksum=*/false);
  return dir + "/" + name;
}

}  // namespace

// The shapes listed without building a model are the model's own.
TEST(ImportExport, ParamShapesAreTheModelsOwn) {
  GPTConfig g;
  g.vocab_size = 37, g.block_size = 9, g.n_layer = 3, g.n_head = 2, g.n_embd = 8;
  for (bool tied : {false, true})
    for (bool bias : {false, true}) {
      g.tied = tied, g.bias = bias;
      GPT gpt(g);
      const auto shapes = gpt_param_shapes(g);
      ASSERT_EQ(shapes.size(), gpt.params().size());
      for (size_t i = 0; i < shapes.size(); ++i) {
        EXPECT_EQ(shapes[i].first, gpt.params()[i].name);
        EXPECT_EQ(static_cast<int64_t>(shapes[i].second.size()), gpt.params()[i].value.rank);
      }
    }
}

TEST(ImportExport, EveryLayoutImportsToPyTorchsLogits) {
  const std::string dir = scratch_dir("import_logits");
  for (const char* layout : {"hub", "saved", "saved_nohead"}) {
    const CliResult r = import_model("hf", fx(layout), dir + "/" + layout + ".safetensors");
    ASSERT_EQ(r.rc, 0) << layout << ": " << r.err;
    expect_pytorch_logits(dir + "/" + layout + ".safetensors");
  }
  // The model.safetensors path instead of its directory.
  ASSERT_EQ(import_model("hf", fx("hub/model.safetensors"), dir + "/file.safetensors").rc, 0);
  CliResult r = import_model("llmc", fx("llmc.bin"), dir + "/llmc.safetensors");
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_pytorch_logits(dir + "/llmc.safetensors");
  // nanoGPT's MLP is the exact GELU: the same weights, so the same tensors as the hub import.
  r = import_model("nanogpt", fx("nanogpt.safetensors"), dir + "/nano.safetensors");
  ASSERT_EQ(r.rc, 0) << r.err;
  const Checkpoint nano = load_checkpoint(dir + "/nano.safetensors");
  const Checkpoint hub = load_checkpoint(dir + "/hub.safetensors");
  EXPECT_EQ(nano.cfg.gpt.activation, Activation::kGeluExact);
  for (const auto& [name, shape] : gpt_param_shapes(hub.cfg.gpt))
    EXPECT_TRUE(nano.st.get(name).bytes == hub.st.get(name).bytes) << name;
  // The imported model samples, and a weights-only checkpoint cannot be resumed.
  r = run_cli("sample --checkpoint '" + dir + "/hub.safetensors' --num-tokens 5 --seed 1");
  EXPECT_EQ(r.rc, 0) << r.err;
  const Checkpoint ck = load_checkpoint(dir + "/hub.safetensors");
  std::unique_ptr<LanguageModel> model = build_model(ck.cfg);
  EXPECT_NE(error_of([&] { restore_params(ck, *model, /*with_optimizer=*/true); })
                .find("--init-from"),
            std::string::npos);
}

// Export writes what the other tools wrote: llm.c's file and nanoGPT's state_dict byte for byte,
// save_pretrained's tensors; and every format round trips bit for bit.
TEST(ImportExport, ExportMatchesTheirFilesAndRoundTrips) {
  const std::string dir = scratch_dir("export");
  const std::string ck = dir + "/hub.safetensors";
  ASSERT_EQ(import_model("hf", fx("hub"), ck).rc, 0);
  auto exp = [&](const std::string& format, const std::string& out) {
    return run_cli("export --format " + format + " --checkpoint '" + ck + "' --out '" + out + "'");
  };
  CliResult r = exp("llmc", dir + "/model.bin");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(slurp(dir + "/model.bin") == slurp(fx("llmc.bin")));
  r = exp("nanogpt", dir + "/nano.safetensors");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("tanh GELU"), std::string::npos) << r.out;  // the note
  const SafeTensors nano = load_safetensors(dir + "/nano.safetensors");
  // The fixture is nanoGPT's state_dict under PyTorch 2 (no mask buffers); under PyTorch 1.x
  // (Debian's 1.13) nanoGPT also registers each layer's attn.bias causal mask, tril(ones(T, T))
  // viewed (1, 1, T, T), and strict loading needs it: the export writes both (issue 39, item 3).
  SafeTensors want = load_safetensors(fx("nanogpt.safetensors"));
  const nlohmann::json args = nlohmann::json::parse(want.meta("model_args"));
  const int64_t T = args["block_size"].get<int64_t>();
  std::vector<float> tril(static_cast<size_t>(T * T), 0.0f);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j <= i; ++j) tril[static_cast<size_t>(i * T + j)] = 1.0f;
  for (int l = 0; l < args["n_layer"].get<int>(); ++l)
    want.add_f32("transformer.h." + std::to_string(l) + ".attn.bias", {1, 1, T, T}, tril.data());
  expect_same_tensors(nano, want, "nanogpt");
  EXPECT_EQ(nlohmann::json::parse(nano.meta("model_args")),
            nlohmann::json::parse(load_safetensors(fx("nanogpt.safetensors")).meta("model_args")));
  r = exp("hf", dir + "/hf");
  ASSERT_EQ(r.rc, 0) << r.err;
  expect_same_tensors(load_safetensors(dir + "/hf/model.safetensors"),
                      load_safetensors(fx("saved_nohead/model.safetensors")), "hf");
  const nlohmann::json cfg = nlohmann::json::parse(slurp(dir + "/hf/config.json"));
  EXPECT_EQ(cfg["n_embd"], 16);
  EXPECT_EQ(cfg["activation_function"], "gelu_new");
  EXPECT_TRUE(slurp(dir + "/hf/vocab.json") == slurp(fx("tok500/encoder.json")));
  r = exp("scratchgpt", dir + "/weights.safetensors");
  ASSERT_EQ(r.rc, 0) << r.err;

  const Checkpoint original = load_checkpoint(ck);
  const struct {
    const char* format;
    std::string path;
  } back[] = {{"hf", dir + "/hf"}, {"llmc", dir + "/model.bin"}, {"nanogpt", dir + "/nano.safetensors"}};
  for (const auto& b : back) {
    const std::string again = dir + "/again_" + b.format + ".safetensors";
    r = import_model(b.format, b.path, again);
    ASSERT_EQ(r.rc, 0) << b.format << ": " << r.err;
    const Checkpoint c = load_checkpoint(again);
    for (const auto& [name, shape] : gpt_param_shapes(original.cfg.gpt))
      EXPECT_TRUE(c.st.get(name).bytes == original.st.get(name).bytes) << b.format << " " << name;
  }
  const Checkpoint w = load_checkpoint(dir + "/weights.safetensors");
  EXPECT_TRUE(w.weights_only);
  for (const auto& [name, shape] : gpt_param_shapes(original.cfg.gpt))
    EXPECT_TRUE(w.st.get(name).bytes == original.st.get(name).bytes) << name;
}

// A training checkpoint (with AdamW's moments) exports its weights alone; a model without biases
// gets zero biases in Hugging Face's layout and computes the same logits after a round trip.
TEST(ImportExport, TrainedModelsExportTheirWeights) {
  const std::string dir = scratch_dir("export_trained");
  const std::string data = prepared(dir, shakespeare(20000));
  CliResult r = run_cli("train --preset shakespeare-char-small --n-layer 1 --n-head 2 --n-embd 16 "
                        "--block-size 16 --batch-size 2 --max-iters 2 --eval-interval 2 --activation gelu-exact "
                        "--eval-iters 1 --threads 1 --data-dir '" + data + "' --out-dir '" + dir +
                        "/run'");
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string ck = dir + "/run/last.safetensors";
  r = run_cli("export --format scratchgpt --checkpoint '" + ck + "' --out '" + dir + "/w.safetensors'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_LT(fs::file_size(dir + "/w.safetensors") * 2, fs::file_size(ck));  // no moments
  r = run_cli("export --format hf --checkpoint '" + ck + "' --out '" + dir + "/hf'");
  ASSERT_EQ(r.rc, 0) << r.err;
  // A character model: import it back with its vocabulary as a BPE is not possible, so compare
  // the tensors: zero biases where the model has none, the weights transposed as Conv1D.
  const SafeTensors hf = load_safetensors(dir + "/hf/model.safetensors");
  const Checkpoint c = load_checkpoint(ck);
  for (float v : hf.f32("transformer.h.0.ln_1.bias")) EXPECT_EQ(v, 0.0f);
  const std::vector<float> ours = c.st.f32("blocks.0.mlp.c_fc.weight");  // (4C, C)
  const std::vector<float> theirs = hf.f32("transformer.h.0.mlp.c_fc.weight");  // (C, 4C)
  ASSERT_EQ(hf.shape("transformer.h.0.mlp.c_fc.weight"), (std::vector<int64_t>{16, 64}));
  for (int o = 0; o < 64; ++o)
    for (int i = 0; i < 16; ++i) ASSERT_EQ(theirs[i * 64 + o], ours[o * 16 + i]);
  // nanoGPT's bias=False layout is ours: no bias keys at all.
  r = run_cli("export --format nanogpt --checkpoint '" + ck + "' --out '" + dir + "/n.safetensors'");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(load_safetensors(dir + "/n.safetensors").has("transformer.h.0.ln_1.bias"));
  // llm.c has no exact GELU: a clear refusal, nothing written.
  expect_error(run_cli("export --format llmc --checkpoint '" + ck + "' --out '" + dir + "/m.bin'"),
               "tanh GELU");
  EXPECT_FALSE(fs::exists(dir + "/m.bin"));
}

TEST(ImportExport, BadFilesAreErrorsNamingTheTensor) {
  const std::string dir = scratch_dir("import_bad");
  const std::string hub = fx("hub/model.safetensors");
  expect_error(import_model("hf", edited(dir, "missing", hub, [](SafeTensors& st) {
                              st.tensors.erase("h.1.mlp.c_fc.bias");
                            }), dir + "/o.safetensors"),
               "'h.1.mlp.c_fc.bias'");
  expect_error(import_model("hf", edited(dir, "extra", hub, [](SafeTensors& st) {
                              st.tensors["h.2.ln_1.weight"] = st.tensors.at("h.1.ln_1.weight");
                            }), dir + "/o.safetensors"),
               "'h.2.ln_1.weight'");
  expect_error(import_model("hf", edited(dir, "shape", hub, [](SafeTensors& st) {
                              st.tensors.at("h.0.attn.c_attn.weight").shape = {48, 16};
                            }), dir + "/o.safetensors"),
               "'h.0.attn.c_attn.weight' has shape (48, 16)");
  expect_error(import_model("hf", edited(dir, "head", hub, [](SafeTensors& st) {
                              st.tensors["lm_head.weight"] = st.tensors.at("wpe.weight");
                            }), dir + "/o.safetensors"),
               "lm_head.weight");
  // Truncated: the header says more bytes than the file has.
  fs::create_directories(dir + "/cut");
  fs::copy_file(fx("hub/config.json"), dir + "/cut/config.json");
  const std::string bytes = slurp(hub);
  spit(dir + "/cut/model.safetensors", bytes.substr(0, bytes.size() - 100));
  expect_error(import_model("hf", dir + "/cut", dir + "/o.safetensors"), "truncated");
  // The wrong tokenizer for the vocabulary.
  expect_error(run_cli("import --format hf --input '" + fx("hub") + "' --out '" + dir +
                       "/o.safetensors'"),
               "500 tokens");
  // llm.c: another magic, another version, cut short.
  std::string bin = slurp(fx("llmc.bin"));
  std::string other = bin;
  other[0] = 0x21;
  spit(dir + "/magic.bin", other);
  expect_error(import_model("llmc", dir + "/magic.bin", dir + "/o.safetensors"), "magic");
  other = bin;
  other[4] = 4;
  spit(dir + "/version.bin", other);
  expect_error(import_model("llmc", dir + "/version.bin", dir + "/o.safetensors"), "version 4");
  spit(dir + "/short.bin", bin.substr(0, bin.size() - 4));
  expect_error(import_model("llmc", dir + "/short.bin", dir + "/o.safetensors"), "truncated");
  expect_error(import_model("onnx", fx("hub"), dir + "/o.safetensors"), "--format");
  EXPECT_FALSE(fs::exists(dir + "/o.safetensors"));  // nothing written by any of them
}

// llm.c's bfloat16 files (version 5): each weight is the high half of a float32.
TEST(ImportExport, LlmcBfloat16) {
  const std::string dir = scratch_dir("import_bf16");
  const std::string f32 = slurp(fx("llmc.bin"));
  std::string bf16 = f32.substr(0, 1024);
  bf16[4] = 5;
  for (size_t i = 1024; i < f32.size(); i += 4) bf16 += f32.substr(i + 2, 2);  // little-endian
  spit(dir + "/bf16.bin", bf16);
  ASSERT_EQ(import_model("llmc", dir + "/bf16.bin", dir + "/bf16.safetensors").rc, 0);
  ASSERT_EQ(import_model("llmc", fx("llmc.bin"), dir + "/f32.safetensors").rc, 0);
  const Checkpoint a = load_checkpoint(dir + "/bf16.safetensors");
  const Checkpoint b = load_checkpoint(dir + "/f32.safetensors");
  const std::vector<float> x = a.st.f32("blocks.1.mlp.c_proj.weight");
  const std::vector<float> y = b.st.f32("blocks.1.mlp.c_proj.weight");
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &y[i], 4);
    bits &= 0xFFFF0000u;  // bfloat16 keeps the top 16 bits
    float want;
    std::memcpy(&want, &bits, 4);
    ASSERT_EQ(x[i], want) << i;
  }
}

// Whole numbers past int wrapped silently ("n_layer": 4294967298 imported as 2 layers,
// "vocab_size": 4294967796 as 500 tokens); wrong types gave nlohmann's raw messages; an impossible
// combination named neither file nor field. Each is now one line naming the file, the field and
// what it must be, under the training config's rules for numbers (train_config.h:
// json_whole_number).
TEST(ImportExport, ConfigNumbersAreStrictAndErrorsNameTheFile) {
  const std::string dir = scratch_dir("import_numbers");
  const nlohmann::json hub = nlohmann::json::parse(slurp(fx("hub/config.json")));
  int n = 0;
  // A copy of the hub model whose config.json has key set to value.
  auto hf_with = [&](const std::string& key, const nlohmann::json& value) {
    const std::string d = dir + "/hf" + std::to_string(n++);
    fs::create_directories(d);
    fs::copy_file(fx("hub/model.safetensors"), d + "/model.safetensors");
    nlohmann::json c = hub;
    c[key] = value;
    if (key == "n_positions") c.erase("n_ctx");
    spit(d + "/config.json", c.dump());
    return d;
  };
  const uint64_t k2_32 = 4294967296ull;
  const struct {
    const char* key;
    nlohmann::json value;
    const char* says;
  } hf_cases[] = {
      {"n_layer", k2_32 + 2, "'n_layer' is out of range: 4294967298"},
      {"vocab_size", k2_32 + 500, "'vocab_size' is out of range"},
      {"n_head", k2_32 + 2, "'n_head' is out of range"},
      {"n_embd", k2_32 + 16, "'n_embd' is out of range"},
      {"n_positions", k2_32 + 16, "'n_positions' is out of range"},
      {"n_embd", "16", "'n_embd' has the wrong type: it must be a whole number, got \"16\""},
      {"n_layer", 2.5, "'n_layer' has the wrong type: it must be a whole number, got 2.5"},
      {"layer_norm_epsilon", "1e-5",
       "'layer_norm_epsilon' has the wrong type: it must be a "
       "finite number"},
      {"tie_word_embeddings", 1,
       "'tie_word_embeddings' has the wrong type: it must be true or "
       "false"},
      {"activation_function", 5, "'activation_function' has the wrong type: it must be a string"},
      {"n_head", 3, "n_embd (16) must be divisible by n_head (3)"},
  };
  const std::string out = dir + "/o.safetensors";
  for (const auto& c : hf_cases) {
    SCOPED_TRACE(c.key);
    const std::string d = hf_with(c.key, c.value);
    const CliResult r = import_model("hf", d, out);
    expect_error(r, d + "/config.json");
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  // nanoGPT's model_args, in the metadata of its safetensors.
  const SafeTensors nano = load_safetensors(fx("nanogpt.safetensors"));
  const nlohmann::json args = nlohmann::json::parse(nano.meta("model_args"));
  const struct {
    const char* key;
    nlohmann::json value;
    const char* says;
  } nano_cases[] = {
      {"n_layer", k2_32 + 2, "'n_layer' is out of range"},
      {"vocab_size", k2_32 + 500, "'vocab_size' is out of range"},
      {"block_size", k2_32 + 16, "'block_size' is out of range"},
      {"n_embd", k2_32 + 16, "'n_embd' is out of range"},
      {"n_head", -1, "n_head must be positive"},
      {"bias", "yes", "'bias' has the wrong type: it must be true or false"},
      {"n_head", 3, "must be divisible by n_head (3)"},
  };
  for (const auto& c : nano_cases) {
    SCOPED_TRACE(c.key);
    SafeTensors st = nano;
    nlohmann::json a = args;
    a[c.key] = c.value;
    st.metadata["model_args"] = a.dump();
    const std::string path = dir + "/nano" + std::to_string(n++) + ".safetensors";
    save_safetensors(path, st, /*add_checksum=*/false);
    const CliResult r = import_model("nanogpt", path, out);
    expect_error(r, path + "'s model_args");
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

// nanoGPT's run directory as it is (issue 39, item 1): train.py's out/ckpt.pt and
// data/shakespeare_char's train.bin, val.bin and meta.pkl (tests/fixtures/nanogpt_ckpt, written
// by nanoGPT's own code under Debian's torch): imported, fine-tuned with --init-from and sampled
// from without any conversion.
TEST(ImportExport, NanoGptRunDirectoryAsItIs) {
  const std::string dir = scratch_dir("nanogpt_run");
  fs::create_directories(dir + "/data");
  for (const char* f : {"train.bin", "val.bin", "meta.pkl"})
    fs::copy_file(test::fixture_path(std::string("nanogpt_ckpt/") + f), dir + "/data/" + f);
  fs::copy_file(test::fixture_path("nanogpt_ckpt/char.pt"), dir + "/ckpt.pt");
  fs::copy_file(test::fixture_path("nanogpt_ckpt/meta.pkl"), dir + "/meta.pkl");
  CliResult r = run_cli("import --format nanogpt --input '" + dir + "/ckpt.pt' --out '" + dir +
                        "/imp.safetensors'");  // the meta.pkl beside it: no --tokenizer
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("58 tokens"), std::string::npos) << r.out;
  r = run_cli("train --init-from '" + dir + "/ckpt.pt' --data-dir '" + dir + "/data' --out-dir '" +
              dir + "/out' --max-iters 2 --eval-interval 2 --eval-iters 2 --batch-size 4");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/out/best.safetensors"));
  r = run_cli("sample --checkpoint '" + dir + "/ckpt.pt' --max-new-tokens 20 --seed 1");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("import --format nanogpt --input '" + fx("llmc.bin") + "' --out '" + dir + "/x.st'");
  expect_error(r, "is llm.c's model file (magic 20240326), not nanoGPT's: import it with --format llmc");
}

// nanoGPT's GPT-2-token run (vocab 50304, padded): imported with its rows, sampled (only GPT-2's
// ids: the text decodes), and --init-from keeps the padded rows through training on GPT-2 data.
TEST(ImportExport, NanoGptPaddedVocabularyComesInAsItIs) {
  const std::string dir = scratch_dir("nanogpt_padded");
  const std::string pt = test::fixture_path("nanogpt_ckpt/padded.pt");
  CliResult r = run_cli("import --format nanogpt --input '" + pt + "' --out '" + dir + "/p.safetensors'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("sample --checkpoint '" + dir + "/p.safetensors' --max-new-tokens 30 --seed 2 --prompt 'The'");
  ASSERT_EQ(r.rc, 0) << r.err;
  spit(dir + "/input.txt", shakespeare(20000));
  r = run_cli("prepare --tokenizer gpt2 --input '" + dir + "/input.txt' --out-dir '" + dir + "/data'");
  ASSERT_EQ(r.rc, 0) << r.err;
  r = run_cli("train --init-from '" + pt + "' --data-dir '" + dir + "/data' --out-dir '" + dir +
              "/out' --max-iters 2 --eval-interval 2 --eval-iters 1 --batch-size 2");
  ASSERT_EQ(r.rc, 0) << r.err;
  const scratchgpt::Checkpoint ck = scratchgpt::load_checkpoint(dir + "/out/last.safetensors");
  EXPECT_EQ(ck.cfg.gpt.vocab_size, 50304);
  EXPECT_EQ(ck.tokenizer.vocab_size(), 50257);
}
