"""Protocol-buffer wire-format primitives shared by the scripts that write
ONNX bytes by hand: tools/make-models/big_model.py (streams weights),
tests/fixtures/make_fixtures.py and tests/fixtures/bad/make_bad.py (files a
correct exporter never writes). Standard library only."""

U64 = (1 << 64) - 1


def varint(n):
    """Base-128 varint; a negative int64 is sent as its 64-bit two's complement."""
    n &= U64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire_type):
    return varint((field << 3) | wire_type)


def len_field(field, payload_len):
    """Key + length prefix of a length-delimited field."""
    return key(field, 2) + varint(payload_len)
