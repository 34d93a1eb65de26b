#include "device_model/format.h"

#include <stdexcept>

namespace npu::model {

namespace {

// The ranks torch_npu accepts. NHWC is 4-D like NCHW but has no ND fallback in
// FORMATS.md, so other ranks are an error rather than a silent relabel.
const std::vector<FormatInfo> kTable = {
    {Format::Undefined, "UNDEFINED", Format::Undefined, 1, 0},
    {Format::NCHW, "NCHW", Format::NCHW, 4, 4},
    {Format::NHWC, "NHWC", Format::NHWC, 4, 4},
    {Format::ND, "ND", Format::ND, 0, kAnyRank},
    {Format::NC1HWC0, "NC1HWC0", Format::NCHW, 0, 4},
    {Format::FRACTAL_Z, "FRACTAL_Z", Format::NCHW, 0, 4},
    {Format::NC1HWC0_C04, "NC1HWC0_C04", Format::NCHW, 0, 4},
    {Format::HWCN, "HWCN", Format::Undefined, 4, 4},
    {Format::NDHWC, "NDHWC", Format::NCDHW, 5, 5},
    {Format::FRACTAL_NZ, "FRACTAL_NZ", Format::ND, 2, kAnyRank},
    {Format::NCDHW, "NCDHW", Format::NCDHW, 5, 5},
    {Format::NDC1HWC0, "NDC1HWC0", Format::NCDHW, 5, 5},
    {Format::FRACTAL_Z_3D, "FRACTAL_Z_3D", Format::NCDHW, 5, 5},
    {Format::NC, "NC", Format::NC, 2, 2},
    {Format::NCL, "NCL", Format::NCL, 3, 3},
    {Format::FRACTAL_NZ_C0_16, "FRACTAL_NZ_C0_16", Format::ND, 2, kAnyRank},
    {Format::FRACTAL_NZ_C0_32, "FRACTAL_NZ_C0_32", Format::ND, 2, kAnyRank},
    {Format::FRACTAL_NZ_C0_2, "FRACTAL_NZ_C0_2", Format::ND, 2, kAnyRank},
    {Format::FRACTAL_NZ_C0_4, "FRACTAL_NZ_C0_4", Format::ND, 2, kAnyRank},
    {Format::FRACTAL_NZ_C0_8, "FRACTAL_NZ_C0_8", Format::ND, 2, kAnyRank},
};

const FormatInfo* find(int64_t id) {
  for (const FormatInfo& info : kTable) {
    if (static_cast<int64_t>(info.format) == id) return &info;
  }
  return nullptr;
}

}  // namespace

const std::vector<FormatInfo>& format_table() { return kTable; }

const FormatInfo& format_info(Format format) {
  const FormatInfo* info = find(static_cast<int64_t>(format));
  // Only a Format made by casting an unchecked integer can miss the table.
  if (info == nullptr) throw std::invalid_argument(format_label(format));
  return *info;
}

std::optional<Format> format_from_acl(int64_t id) {
  const FormatInfo* info = find(id);
  if (info == nullptr) return std::nullopt;
  return info->format;
}

Format format_from_id(int64_t id) {
  const auto format = format_from_acl(id);
  if (!format) {
    throw std::invalid_argument("unknown format id " + std::to_string(id) + "; allowed ids: " +
                                allowed_format_ids());
  }
  return *format;
}

const char* format_name(Format format) {
  const FormatInfo* info = find(static_cast<int64_t>(format));
  return info != nullptr ? info->name : "unknown";
}

std::string format_label(Format format) {
  return std::string(format_name(format)) + " (" + std::to_string(static_cast<int32_t>(format)) + ")";
}

std::string allowed_format_ids() {
  std::string out;
  for (const FormatInfo& info : kTable) {
    if (!out.empty()) out += ", ";
    out += format_label(info.format);
  }
  return out;
}

Format base_format(Format format) { return format_info(format).base; }

bool is_storable_format(Format format) { return base_format(format) != Format::Undefined; }

bool is_base_format(Format format) { return is_storable_format(format) && base_format(format) == format; }

bool is_private_format(Format format) {
  // Asked for every tensor argument of every launch, nearly always ND.
  if (format == Format::ND) return false;
  const Format base = base_format(format);
  return base != Format::Undefined && base != format;
}

bool rank_allowed(Format format, int64_t rank) {
  const FormatInfo& info = format_info(format);
  return rank >= info.min_rank && rank <= info.max_rank;
}

Format guess_base_format(int64_t rank) {
  if (rank == 4) return Format::NCHW;
  if (rank == 5) return Format::NCDHW;
  return Format::ND;
}

}  // namespace npu::model
