#include "host/trace/trace_cache.h"

#include <utility>

namespace ssdtwin {

struct TraceRecordCache::Entry {
  std::string path;
  TraceFormat format;
  TraceReadOptions opt;
  std::vector<TraceRecord> records;
  TraceStats stats;    // the file reader's, at its end
  std::string source;  // as the file reader names it in messages

  bool same(const std::string& p, TraceFormat f, const TraceReadOptions& o) const {
    return path == p && format == f && opt == o;
  }
};

namespace {

// A kept trace, replayed from memory. Its statistics are the file reader's
// final ones from the start: they are read once the replay has ended.
class MemoryTraceReader final : public TraceReader {
 public:
  MemoryTraceReader(const std::vector<TraceRecord>& records, const TraceStats& stats,
                    const std::string& source, TraceFormat format)
      : records_(records), stats_(stats), source_(source), format_(format) {}
  bool next(TraceRecord& r) override {
    if (at_ == records_.size()) return false;
    r = records_[at_++];
    return true;
  }
  const TraceStats& stats() const override { return stats_; }
  const std::string& source() const override { return source_; }
  TraceFormat format() const override { return format_; }
  double progress() const override {
    return records_.empty() ? 1.0 : static_cast<double>(at_) / static_cast<double>(records_.size());
  }

 private:
  const std::vector<TraceRecord>& records_;
  const TraceStats& stats_;
  const std::string& source_;
  TraceFormat format_;
  std::size_t at_ = 0;
};

}  // namespace

// A file reader whose records are copied aside until the limit; at the end
// of the file, the copy and the final statistics go to the cache.
class RecordingTraceReader final : public TraceReader {
 public:
  RecordingTraceReader(std::unique_ptr<TraceReader> file,
                       std::unique_ptr<TraceRecordCache::Entry> entry, TraceRecordCache& cache)
      : file_(std::move(file)), entry_(std::move(entry)), cache_(cache) {}
  bool next(TraceRecord& r) override {
    if (!file_->next(r)) {
      if (entry_) {
        entry_->stats = file_->stats();
        entry_->source = file_->source();
        entry_->records.shrink_to_fit();
        cache_.keep(std::move(entry_));
      }
      return false;
    }
    if (entry_) {
      if (entry_->records.size() < cache_.room())
        entry_->records.push_back(r);
      else
        entry_.reset();  // too long to keep: streamed every time
    }
    return true;
  }
  const TraceStats& stats() const override { return file_->stats(); }
  const std::string& source() const override { return file_->source(); }
  TraceFormat format() const override { return file_->format(); }
  double progress() const override { return file_->progress(); }

 private:
  std::unique_ptr<TraceReader> file_;
  std::unique_ptr<TraceRecordCache::Entry> entry_;  // null once over the limit or kept
  TraceRecordCache& cache_;
};

TraceRecordCache::TraceRecordCache(std::size_t max_records) : max_records_(max_records) {}
TraceRecordCache::~TraceRecordCache() = default;

TraceRecordCache::Entry* TraceRecordCache::find(const std::string& path, TraceFormat format,
                                                const TraceReadOptions& opt) {
  for (const auto& e : entries_)
    if (e->same(path, format, opt)) return e.get();
  return nullptr;
}

std::unique_ptr<TraceReader> TraceRecordCache::open(const std::string& path, TraceFormat format,
                                                    const TraceReadOptions& opt) {
  if (const Entry* e = find(path, format, opt))
    return std::make_unique<MemoryTraceReader>(e->records, e->stats, e->source, e->format);
  auto file = open_trace(path, format, opt);
  auto entry = std::make_unique<Entry>();
  entry->path = path;
  entry->format = format;
  entry->opt = opt;
  return std::make_unique<RecordingTraceReader>(std::move(file), std::move(entry), *this);
}

TraceStats TraceRecordCache::scan(const std::string& path, TraceFormat format,
                                  const TraceReadOptions& opt) {
  if (const Entry* e = find(path, format, opt)) return e->stats;
  const auto reader = open(path, format, opt);  // kept for the replay that follows
  TraceRecord r;
  while (reader->next(r)) {
  }
  return reader->stats();
}

void TraceRecordCache::keep(std::unique_ptr<Entry> e) {
  // Two readers of one trace open at once both reach its end: one copy,
  // and none past the limit.
  if (find(e->path, e->format, e->opt) || e->records.size() > room()) return;
  kept_records_ += e->records.size();
  entries_.push_back(std::move(e));
}

std::size_t TraceRecordCache::room() const { return max_records_ - kept_records_; }

std::size_t TraceRecordCache::kept() const { return entries_.size(); }

}  // namespace ssdtwin
