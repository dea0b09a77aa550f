// pickle_test.cpp: the restricted unpickler and the zip reader on files the real tools wrote
// (tests/fixtures/nanogpt_ckpt/: nanoGPT's train.py checkpoint saved by Debian's torch 1.13 and
// prepare.py's meta.pkl, tools/make_nanogpt_ckpt_fixtures.py), and every refusal: foreign
// globals, code-running opcodes, compressed entries, truncation, hostile structure.
#include "core/pickle.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/check.h"
#include "core/mapped_file.h"
#include "core/zip_reader.h"
#include "test_util.h"

using namespace scratchgpt;
using namespace scratchgpt::test;
using namespace std::string_literals;

namespace {

std::string refusal(const std::string& bytes) {
  return error_of(
      [&] { Pickle p(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "x.pkl"); });
}

const PickleValue& data_pkl(const ZipReader& z, const std::string& archive, Pickle*& out) {
  const ZipReader::Entry e = z.at(archive + "/data.pkl");
  out = new Pickle(e.data, e.size, archive);
  return out->root();
}

}  // namespace

TEST(Pickle, ReadsNanoGptCheckpointAsTrainPySavedIt) {
  const MappedFile f(fixture_path("nanogpt_ckpt/char.pt"));
  ASSERT_TRUE(is_zip(f.data(), f.size()));
  const ZipReader z(f.data(), f.size(), "char.pt");
  Pickle* p = nullptr;
  const PickleValue& root = data_pkl(z, "char", p);
  std::unique_ptr<Pickle> own(p);
  const PickleValue* model = root.get("model");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->items.size() / 2, 31u);  // 2 layers: 13 each, wte, wpe, ln_f x2, lm_head
  const PickleValue* wte = model->get("transformer.wte.weight");
  ASSERT_TRUE(wte && wte->is(PickleValue::Kind::kTensor));
  EXPECT_EQ(wte->shape, (std::vector<int64_t>{58, 16}));
  EXPECT_EQ(wte->stride, (std::vector<int64_t>{16, 1}));
  EXPECT_EQ(wte->storage->dtype, "float32");
  // The tied head shares wte's storage, as torch.save wrote it.
  EXPECT_EQ(model->get("lm_head.weight")->storage->s, wte->storage->s);
  EXPECT_EQ(z.at("char/data/" + wte->storage->s).size, 58u * 16 * 4);
  EXPECT_EQ(root.get("iter_num")->i, 2);
  EXPECT_EQ(root.get("model_args")->get("n_head")->i, 2);
  EXPECT_TRUE(root.get("model_args")->get("bias")->b);
  EXPECT_DOUBLE_EQ(root.get("config")->get("learning_rate")->f, 1e-3);
  EXPECT_EQ(root.get("config")->get("dataset")->s, "shakespeare_char");
  EXPECT_TRUE(root.get("best_val_loss")->is(PickleValue::Kind::kTensor));
  const PickleValue* opt = root.get("optimizer");
  ASSERT_TRUE(opt && opt->get("state") && opt->get("param_groups"));
  EXPECT_EQ(opt->get("param_groups")->items.size(), 2u);  // configure_optimizers' two groups
}

TEST(Pickle, ReadsBf16StoragesAndCompiledKeys) {
  const MappedFile f(fixture_path("nanogpt_ckpt/bf16.pt"));
  const ZipReader z(f.data(), f.size(), "bf16.pt");
  Pickle* p = nullptr;
  std::unique_ptr<Pickle> own((data_pkl(z, "bf16", p), p));
  EXPECT_EQ(p->root().get("model")->get("transformer.wte.weight")->storage->dtype, "bfloat16");
  const MappedFile g(fixture_path("nanogpt_ckpt/compiled.pt"));
  const ZipReader zc(g.data(), g.size(), "compiled.pt");
  std::unique_ptr<Pickle> own2((data_pkl(zc, "compiled", p), p));
  EXPECT_NE(p->root().get("model")->get("_orig_mod.transformer.wte.weight"), nullptr);
}

TEST(Pickle, ReadsNanoGptMetaPkl) {
  const MappedFile f(fixture_path("nanogpt_ckpt/meta.pkl"));  // protocol 4, FRAME, MEMOIZE
  const Pickle p(f.data(), f.size(), "meta.pkl");
  EXPECT_EQ(p.root().get("vocab_size")->i, 58);
  const PickleValue* itos = p.root().get("itos");
  ASSERT_EQ(itos->items.size(), 2u * 58);
  EXPECT_EQ(itos->items[0]->i, 0);
  EXPECT_EQ(itos->items[1]->s, "\n");
  for (size_t k = 0; k < itos->items.size(); k += 2)  // stoi is itos inverted
    EXPECT_EQ(p.root().get("stoi")->get(itos->items[k + 1]->s)->i, itos->items[k]->i);
}

TEST(Pickle, WritesMetaPklThatReadsAsPrepareDotPysOwn) {
  const MappedFile f(fixture_path("nanogpt_ckpt/meta.pkl"));
  const Pickle theirs(f.data(), f.size(), "meta.pkl");
  std::vector<std::string> chars;
  const PickleValue* itos = theirs.root().get("itos");
  for (size_t k = 1; k < itos->items.size(); k += 2) chars.push_back(itos->items[k]->s);
  const std::string bytes = write_pickle_char_meta(chars);
  const Pickle ours(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "ours");
  EXPECT_EQ(ours.root().get("vocab_size")->i, theirs.root().get("vocab_size")->i);
  for (const char* key : {"itos", "stoi"}) {
    const auto &a = ours.root().get(key)->items, &b = theirs.root().get(key)->items;
    ASSERT_EQ(a.size(), b.size()) << key;
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k]->kind, b[k]->kind) << key << k;
      EXPECT_EQ(a[k]->i, b[k]->i) << key << k;
      EXPECT_EQ(a[k]->s, b[k]->s) << key << k;
    }
  }
}

TEST(Pickle, RefusesWhatAStateDictNeverHolds) {
  // os.system('ls'): the global is refused before anything could be called.
  EXPECT_NE(refusal("\x80\x02"
                    "cos\nsystem\nX\x02\x00\x00\x00lsR."s)
                .find("refuses the global 'os.system'"),
            std::string::npos);
  EXPECT_NE(refusal("\x80\x04\x8c\x08"
                    "builtins\x8c\x04"
                    "eval\x93."s)
                .find("'builtins.eval'"),
            std::string::npos);
  EXPECT_NE(refusal("\x80\x02"
                    "ctorch\nload\n."s)
                .find("'torch.load'"),
            std::string::npos);
  // Protocol-0 text opcodes, INST, OBJ, NEWOBJ, extensions: named.
  EXPECT_NE(refusal("I1\n."s).find("opcode INT"), std::string::npos);
  EXPECT_NE(refusal("\x80\x02(i"
                    "os\nsystem\n."s)
                .find("opcode INST"),
            std::string::npos);
  EXPECT_NE(refusal("\x80\x02\x82\x01."s).find("opcode EXT1"), std::string::npos);
  EXPECT_NE(refusal("\x80\x02}N\x81."s).find("opcode NEWOBJ"), std::string::npos);
  EXPECT_NE(refusal("\x80\x01."s).find("protocol 1"), std::string::npos);
  // A call of a type name, BUILD of something else, a long int past 64 bits.
  EXPECT_NE(refusal("\x80\x02"
                    "ctorch\nFloatStorage\n)R."s)
                .find("type name"),
            std::string::npos);
  EXPECT_NE(refusal("\x80\x02]}b."s).find("BUILD of a list"), std::string::npos);
  EXPECT_NE(refusal("\x80\x02\x8a\x09"
                    "123456789."s)
                .find("wider than 64 bits"),
            std::string::npos);
}

TEST(Pickle, RefusesDamageWithoutHangingOrRecursing) {
  EXPECT_NE(refusal("\x80\x02}"s).find("truncated"), std::string::npos);
  EXPECT_NE(refusal("\x80\x02X\xff\xff\xff\x7f"
                    "a."s)
                .find("truncated"),
            std::string::npos);
  EXPECT_NE(refusal("\x80\x02h\x05."s).find("never stored"), std::string::npos);
  EXPECT_NE(refusal("\x80\x02"
                    "0."s)
                .find("stack is empty"),
            std::string::npos);
  EXPECT_NE(refusal("\x80\x02NN."s).find("leaves 2 values"), std::string::npos);
  // A tensor reaching past its storage.
  const std::string tensor =
      "\x80\x02"
      "ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
      "ctorch\nFloatStorage\nX\x01\x00\x00\x00"
      "0X\x03\x00\x00\x00"
      "cpuK\x04tQK\x00K\x05\x85K\x01\x85\x89}tR."s;
  EXPECT_NE(refusal(tensor).find("reaches past its storage"), std::string::npos);
  // A million nested lists, and a list holding itself: no recursion, no hang, no leak.
  std::string deep = "\x80\x02";
  for (int i = 0; i < 1000000; ++i) deep += "]";
  for (int i = 0; i < 999999; ++i) deep += "a";
  deep += ".";
  const Pickle p(reinterpret_cast<const uint8_t*>(deep.data()), deep.size(), "deep");
  EXPECT_EQ(p.root().items.size(), 1u);
  const std::string cyclic =
      "\x80\x02]q\x00h\x00"
      "a."s;
  const Pickle c(reinterpret_cast<const uint8_t*>(cyclic.data()), cyclic.size(), "cyclic");
  EXPECT_EQ(c.root().items[0], &c.root());
}

TEST(ZipReader, RefusesCompressedEntriesNamingTheMethod) {
  const MappedFile f(fixture_path("nanogpt_ckpt/deflated.pt"));
  const std::string e = error_of([&] { ZipReader z(f.data(), f.size(), "deflated.pt"); });
  EXPECT_NE(e.find("is compressed (method 8, deflate)"), std::string::npos) << e;
}

TEST(ZipReader, RefusesTruncatedAndDamagedArchives) {
  const MappedFile f(fixture_path("nanogpt_ckpt/compiled.pt"));
  std::string bytes(reinterpret_cast<const char*>(f.data()), f.size());
  for (size_t cut : {size_t{10}, size_t{1000}, bytes.size() - 30, bytes.size() - 1}) {
    const std::string part = bytes.substr(0, cut);
    const std::string e = error_of(
        [&] { ZipReader z(reinterpret_cast<const uint8_t*>(part.data()), part.size(), "cut.pt"); });
    EXPECT_NE(e.find("cut.pt"), std::string::npos) << cut;
  }
  // An entry's local header offset pointing past the file.
  const size_t cd = bytes.rfind(std::string("PK\x01\x02", 4));
  bytes[cd + 42] = '\xff', bytes[cd + 43] = '\xff', bytes[cd + 44] = '\xff',
             bytes[cd + 45] = '\x7f';
  const std::string e = error_of(
      [&] { ZipReader z(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "bad.pt"); });
  EXPECT_NE(e.find("no local header"), std::string::npos) << e;
}

TEST(ZipReader, AZip64LocatorInAShortFileIsRefused) {
  // zip_fuzz's first finding: a ZIP64 locator in a file under 56 bytes read past its end.
  const MappedFile f(std::string(SCRATCHGPT_SOURCE_DIR) +
                     "/fuzz/corpus/zip/zip64_locator_in_a_short_file.bin");
  const std::string e = error_of([&] { ZipReader z(f.data(), f.size(), "short.zip"); });
  EXPECT_NE(e.find("ZIP64 end record is missing"), std::string::npos) << e;
}
