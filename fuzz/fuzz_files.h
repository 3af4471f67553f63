// For loaders that take a path, not text (sweep files, fio job files): a
// private copy of the source tree's layout in a temporary folder, where the
// target writes each input as a file.
//
// The shipped sweep and job files name other files by relative paths
// (../../configs/drives/..., include common.inc, read_iolog=../../traces/...),
// so the folder holds links to configs/ and traces/ and to every file of the
// input's own source folder: a seed resolves its references there as it
// does in the tree, and nothing the fuzzer writes lands in the tree.
#pragma once

#include <stdlib.h>  // mkdtemp

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace ssdtwin::fuzz {

class MirrorDir {
 public:
  // `rel`: the input's folder in the source tree, e.g. "tests/sweeps";
  // `name`: the input's file name there.
  MirrorDir(const std::string& rel, const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path src(SSDTWIN_SOURCE_DIR);
    std::string tmpl = (fs::temp_directory_path() / "ssdtwin-fuzz-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) {
      std::perror("fuzz: mkdtemp");
      std::abort();
    }
    root_ = tmpl;
    fs::create_symlink(src / "configs", root_ / "configs");
    fs::create_symlink(src / "traces", root_ / "traces");
    fs::create_directories(root_ / rel);
    for (const auto& e : fs::directory_iterator(src / rel))
      fs::create_symlink(e.path(), root_ / rel / e.path().filename());
    file_ = (root_ / rel / name).string();
  }
  ~MirrorDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  MirrorDir(const MirrorDir&) = delete;
  MirrorDir& operator=(const MirrorDir&) = delete;

  // Writes `text` as the input file and returns its path.
  const std::string& write(const std::string& text) const {
    std::FILE* f = std::fopen(file_.c_str(), "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0) {
      std::perror("fuzz: writing the input file");
      std::abort();
    }
    return file_;
  }
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
  std::string file_;
};

}  // namespace ssdtwin::fuzz
