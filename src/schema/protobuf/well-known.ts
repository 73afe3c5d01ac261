// The files Confluent resolves without references (ProtobufSchema.KNOWN_DEPENDENCIES): Google's
// well-known types, the google/type common types and Confluent's own. Written out here from their
// public definitions (comments and language options left out: they affect neither type resolution,
// compatibility nor encoding). descriptor.proto is large; it comes from protobufjs's bundled JSON
// (see DESCRIPTOR_FILE) instead.

export const DESCRIPTOR_FILE = "google/protobuf/descriptor.proto";
export const META_FILE = "confluent/meta.proto";

const proto3 = (pkg: string, body: string, imports: string[] = []): string =>
  `syntax = "proto3";\npackage ${pkg};\n${imports.map((i) => `import "${i}";\n`).join("")}\n${body}`;

const wrapper = (name: string, type: string): string => `message ${name} {\n  ${type} value = 1;\n}\n`;

const GOOGLE_PROTOBUF: Record<string, string> = {
  "google/protobuf/any.proto": proto3(
    "google.protobuf",
    "message Any {\n  string type_url = 1;\n  bytes value = 2;\n}\n",
  ),
  "google/protobuf/duration.proto": proto3(
    "google.protobuf",
    "message Duration {\n  int64 seconds = 1;\n  int32 nanos = 2;\n}\n",
  ),
  "google/protobuf/timestamp.proto": proto3(
    "google.protobuf",
    "message Timestamp {\n  int64 seconds = 1;\n  int32 nanos = 2;\n}\n",
  ),
  "google/protobuf/empty.proto": proto3("google.protobuf", "message Empty {}\n"),
  "google/protobuf/field_mask.proto": proto3(
    "google.protobuf",
    "message FieldMask {\n  repeated string paths = 1;\n}\n",
  ),
  "google/protobuf/source_context.proto": proto3(
    "google.protobuf",
    "message SourceContext {\n  string file_name = 1;\n}\n",
  ),
  "google/protobuf/struct.proto": proto3(
    "google.protobuf",
    `message Struct {
  map<string, Value> fields = 1;
}
message Value {
  oneof kind {
    NullValue null_value = 1;
    double number_value = 2;
    string string_value = 3;
    bool bool_value = 4;
    Struct struct_value = 5;
    ListValue list_value = 6;
  }
}
enum NullValue {
  NULL_VALUE = 0;
}
message ListValue {
  repeated Value values = 1;
}
`,
  ),
  "google/protobuf/wrappers.proto": proto3(
    "google.protobuf",
    [
      wrapper("DoubleValue", "double"),
      wrapper("FloatValue", "float"),
      wrapper("Int64Value", "int64"),
      wrapper("UInt64Value", "uint64"),
      wrapper("Int32Value", "int32"),
      wrapper("UInt32Value", "uint32"),
      wrapper("BoolValue", "bool"),
      wrapper("StringValue", "string"),
      wrapper("BytesValue", "bytes"),
    ].join(""),
  ),
  "google/protobuf/type.proto": proto3(
    "google.protobuf",
    `message Type {
  string name = 1;
  repeated Field fields = 2;
  repeated string oneofs = 3;
  repeated Option options = 4;
  SourceContext source_context = 5;
  Syntax syntax = 6;
  string edition = 7;
}
message Field {
  Kind kind = 1;
  Cardinality cardinality = 2;
  int32 number = 3;
  string name = 4;
  string type_url = 6;
  int32 oneof_index = 7;
  bool packed = 8;
  repeated Option options = 9;
  string json_name = 10;
  string default_value = 11;
  enum Kind {
    TYPE_UNKNOWN = 0;
    TYPE_DOUBLE = 1;
    TYPE_FLOAT = 2;
    TYPE_INT64 = 3;
    TYPE_UINT64 = 4;
    TYPE_INT32 = 5;
    TYPE_FIXED64 = 6;
    TYPE_FIXED32 = 7;
    TYPE_BOOL = 8;
    TYPE_STRING = 9;
    TYPE_GROUP = 10;
    TYPE_MESSAGE = 11;
    TYPE_BYTES = 12;
    TYPE_UINT32 = 13;
    TYPE_ENUM = 14;
    TYPE_SFIXED32 = 15;
    TYPE_SFIXED64 = 16;
    TYPE_SINT32 = 17;
    TYPE_SINT64 = 18;
  }
  enum Cardinality {
    CARDINALITY_UNKNOWN = 0;
    CARDINALITY_OPTIONAL = 1;
    CARDINALITY_REQUIRED = 2;
    CARDINALITY_REPEATED = 3;
  }
}
message Enum {
  string name = 1;
  repeated EnumValue enumvalue = 2;
  repeated Option options = 3;
  SourceContext source_context = 4;
  Syntax syntax = 5;
  string edition = 6;
}
message EnumValue {
  string name = 1;
  int32 number = 2;
  repeated Option options = 3;
}
message Option {
  string name = 1;
  Any value = 2;
}
enum Syntax {
  SYNTAX_PROTO2 = 0;
  SYNTAX_PROTO3 = 1;
  SYNTAX_EDITIONS = 2;
}
`,
    ["google/protobuf/any.proto", "google/protobuf/source_context.proto"],
  ),
  "google/protobuf/api.proto": proto3(
    "google.protobuf",
    `message Api {
  string name = 1;
  repeated Method methods = 2;
  repeated Option options = 3;
  string version = 4;
  SourceContext source_context = 5;
  repeated Mixin mixins = 6;
  Syntax syntax = 7;
}
message Method {
  string name = 1;
  string request_type_url = 2;
  bool request_streaming = 3;
  string response_type_url = 4;
  bool response_streaming = 5;
  repeated Option options = 6;
  Syntax syntax = 7;
}
message Mixin {
  string name = 1;
  string root = 2;
}
`,
    ["google/protobuf/source_context.proto", "google/protobuf/type.proto"],
  ),
};

const GOOGLE_TYPE: Record<string, string> = {
  "google/type/calendar_period.proto": proto3(
    "google.type",
    "enum CalendarPeriod {\n  CALENDAR_PERIOD_UNSPECIFIED = 0;\n  DAY = 1;\n  WEEK = 2;\n  FORTNIGHT = 3;\n  MONTH = 4;\n  QUARTER = 5;\n  HALF = 6;\n  YEAR = 7;\n}\n",
  ),
  "google/type/color.proto": proto3(
    "google.type",
    "message Color {\n  float red = 1;\n  float green = 2;\n  float blue = 3;\n  google.protobuf.FloatValue alpha = 4;\n}\n",
    ["google/protobuf/wrappers.proto"],
  ),
  "google/type/date.proto": proto3(
    "google.type",
    "message Date {\n  int32 year = 1;\n  int32 month = 2;\n  int32 day = 3;\n}\n",
  ),
  "google/type/datetime.proto": proto3(
    "google.type",
    `message DateTime {
  int32 year = 1;
  int32 month = 2;
  int32 day = 3;
  int32 hours = 4;
  int32 minutes = 5;
  int32 seconds = 6;
  int32 nanos = 7;
  oneof time_offset {
    google.protobuf.Duration utc_offset = 8;
    TimeZone time_zone = 9;
  }
}
message TimeZone {
  string id = 1;
  string version = 2;
}
`,
    ["google/protobuf/duration.proto"],
  ),
  "google/type/dayofweek.proto": proto3(
    "google.type",
    "enum DayOfWeek {\n  DAY_OF_WEEK_UNSPECIFIED = 0;\n  MONDAY = 1;\n  TUESDAY = 2;\n  WEDNESDAY = 3;\n  THURSDAY = 4;\n  FRIDAY = 5;\n  SATURDAY = 6;\n  SUNDAY = 7;\n}\n",
  ),
  "google/type/decimal.proto": proto3("google.type", "message Decimal {\n  string value = 1;\n}\n"),
  "google/type/expr.proto": proto3(
    "google.type",
    "message Expr {\n  string expression = 1;\n  string title = 2;\n  string description = 3;\n  string location = 4;\n}\n",
  ),
  "google/type/fraction.proto": proto3(
    "google.type",
    "message Fraction {\n  int64 numerator = 1;\n  int64 denominator = 2;\n}\n",
  ),
  "google/type/interval.proto": proto3(
    "google.type",
    "message Interval {\n  google.protobuf.Timestamp start_time = 1;\n  google.protobuf.Timestamp end_time = 2;\n}\n",
    ["google/protobuf/timestamp.proto"],
  ),
  "google/type/latlng.proto": proto3(
    "google.type",
    "message LatLng {\n  double latitude = 1;\n  double longitude = 2;\n}\n",
  ),
  "google/type/money.proto": proto3(
    "google.type",
    "message Money {\n  string currency_code = 1;\n  int64 units = 2;\n  int32 nanos = 3;\n}\n",
  ),
  "google/type/month.proto": proto3(
    "google.type",
    "enum Month {\n  MONTH_UNSPECIFIED = 0;\n  JANUARY = 1;\n  FEBRUARY = 2;\n  MARCH = 3;\n  APRIL = 4;\n  MAY = 5;\n  JUNE = 6;\n  JULY = 7;\n  AUGUST = 8;\n  SEPTEMBER = 9;\n  OCTOBER = 10;\n  NOVEMBER = 11;\n  DECEMBER = 12;\n}\n",
  ),
  "google/type/phone_number.proto": proto3(
    "google.type",
    `message PhoneNumber {
  oneof kind {
    string e164_number = 1;
    ShortCode short_code = 2;
  }
  string extension = 3;
  message ShortCode {
    string region_code = 1;
    string number = 2;
  }
}
`,
  ),
  "google/type/postal_address.proto": proto3(
    "google.type",
    `message PostalAddress {
  int32 revision = 1;
  string region_code = 2;
  string language_code = 3;
  string postal_code = 4;
  string sorting_code = 5;
  string administrative_area = 6;
  string locality = 7;
  string sublocality = 8;
  repeated string address_lines = 9;
  repeated string recipients = 10;
  string organization = 11;
}
`,
  ),
  "google/type/quaternion.proto": proto3(
    "google.type",
    "message Quaternion {\n  double x = 1;\n  double y = 2;\n  double z = 3;\n  double w = 4;\n}\n",
  ),
  "google/type/timeofday.proto": proto3(
    "google.type",
    "message TimeOfDay {\n  int32 hours = 1;\n  int32 minutes = 2;\n  int32 seconds = 3;\n  int32 nanos = 4;\n}\n",
  ),
};

const CONFLUENT: Record<string, string> = {
  [META_FILE]: proto3(
    "confluent",
    `message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
  repeated Rule rules = 4;
}
message Rule {
  string name = 1;
  string doc = 2;
  string expr = 3;
  string sql = 4;
}
extend google.protobuf.FileOptions {
  Meta file_meta = 1088;
}
extend google.protobuf.MessageOptions {
  Meta message_meta = 1088;
}
extend google.protobuf.FieldOptions {
  Meta field_meta = 1088;
}
extend google.protobuf.EnumOptions {
  Meta enum_meta = 1088;
}
extend google.protobuf.EnumValueOptions {
  Meta enum_value_meta = 1088;
}
`,
    [DESCRIPTOR_FILE],
  ),
  "confluent/type/decimal.proto": proto3(
    "confluent.type",
    "message Decimal {\n  bytes value = 1;\n  uint32 precision = 2;\n  int32 scale = 3;\n}\n",
  ),
  "confluent/type/variant.proto": proto3(
    "confluent.type",
    "message Variant {\n  bytes metadata = 1;\n  bytes value = 2;\n}\n",
  ),
};

/** Import path → .proto text, for every known file except descriptor.proto. */
export const KNOWN_TEXTS: ReadonlyMap<string, string> = new Map(
  Object.entries({ ...GOOGLE_PROTOBUF, ...GOOGLE_TYPE, ...CONFLUENT }),
);
