import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.io.WritableUtils;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.mapred.IFile;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.util.IndexedSortable;
import org.apache.hadoop.util.QuickSort;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * Why the postings job's compressed map output changes with the number of reducers
 * (issue 20, pst-reduces-16-codec-lz4; benchmarks/codec_order_study.py runs it).
 *
 * <p>Replays the postings job's map side on its input as Hadoop 3 does it, with Hadoop's own
 * classes where the bytes depend on them: each map's records in the order the mapper emits
 * them (one (word, line offset / 64) per word, splits as LineRecordReader cuts them), spills
 * at the record counts the calibration run recorded, each spill sorted by (partition, key)
 * with {@code org.apache.hadoop.util.QuickSort} over the records in {@code kvmeta}'s index
 * order (the meta buffer fills downwards, so index order is the reverse of emission), equal
 * keys concatenated in the order the sort left them (the combiner, {@code ConcatReducer}),
 * two spills merged per partition as {@code Merger}'s queue does (the shorter segment first,
 * the segment on top keeping an equal key), and every partition written through
 * {@code IFile.Writer} with the codec. Prints one line per R: the materialized bytes. With
 * {@code sorted}, each combined list is sorted first: the same records, in an order that does
 * not depend on the sort.
 *
 * <p>Arguments: input file, split end (bytes), map 0's first-spill record count, codec class
 * ({@code none} for none), comma-separated reducer counts, and optionally {@code sorted}.
 * Experiment code, not part of mrtune's harness.
 */
public class CodecOrderStudy {
  private static byte[][] word;
  private static int[] val;
  private static int[] hash;
  private static final JobConf JOB = new JobConf();

  public static void main(String[] a) throws Exception {
    byte[] data = Files.readAllBytes(Paths.get(a[0]));
    long split = Long.parseLong(a[1]);
    int spill0 = Integer.parseInt(a[2]);
    CompressionCodec codec = a[3].equals("none") ? null
        : (CompressionCodec) ReflectionUtils.newInstance(JOB.getClassByName(a[3]), JOB);
    boolean sortedLists = a.length > 5 && a[5].equals("sorted");
    int m0 = read(data, split);
    for (String rs : a[4].split(",")) {
      int r = Integer.parseInt(rs);
      List<List<Object[]>> first = spill(0, spill0, r, sortedLists);
      List<List<Object[]>> second = spill(spill0, m0, r, sortedLists);
      List<List<Object[]>> tail = spill(m0, word.length, r, sortedLists);
      long total = 0;
      for (int p = 0; p < r; p++) {
        total += write(merge(second.get(p), first.get(p)), codec);
        total += write(tail.get(p), codec);
      }
      System.out.println("R=" + r + " materialized=" + total);
    }
  }

  /** Every word of the input with its line's offset / 64; returns map 0's record count. */
  private static int read(byte[] data, long split) {
    List<byte[]> w = new ArrayList<>();
    List<Integer> v = new ArrayList<>();
    int m0 = 0;
    int pos = 0;
    while (pos < data.length) {
      int nl = pos;
      while (data[nl] != '\n') {
        nl++;
      }
      int s = pos;
      for (int i = pos; i <= nl; i++) {
        if (i == nl || data[i] == ' ') {
          if (i > s) {
            w.add(Arrays.copyOfRange(data, s, i));
            v.add(pos >>> 6);
            if (pos <= split) { // LineRecordReader: a line starting at the split end is map 0's
              m0++;
            }
          }
          s = i + 1;
        }
      }
      pos = nl + 1;
    }
    word = w.toArray(new byte[0][]);
    val = new int[word.length];
    hash = new int[word.length];
    for (int i = 0; i < word.length; i++) {
      val[i] = v.get(i);
      hash[i] = WritableComparator.hashBytes(word[i], word[i].length) & Integer.MAX_VALUE;
    }
    return m0;
  }

  /** Records [from, to) sorted as sortAndSpill sorts them, then combined per partition. */
  private static List<List<Object[]>> spill(int from, int to, int r, boolean sortedLists) {
    final int[] idx = new int[to - from];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = to - 1 - i;
    }
    new QuickSort().sort(new IndexedSortable() {
      @Override
      public int compare(int x, int y) {
        int a = idx[x];
        int b = idx[y];
        int pa = hash[a] % r;
        int pb = hash[b] % r;
        if (pa != pb) {
          return pa < pb ? -1 : 1;
        }
        return WritableComparator.compareBytes(word[a], 0, word[a].length, word[b], 0,
            word[b].length);
      }

      @Override
      public void swap(int x, int y) {
        int t = idx[x];
        idx[x] = idx[y];
        idx[y] = t;
      }
    }, 0, idx.length);
    List<List<Object[]>> parts = new ArrayList<>();
    for (int p = 0; p < r; p++) {
      parts.add(new ArrayList<>());
    }
    int i = 0;
    while (i < idx.length) {
      int j = i;
      while (j < idx.length && Arrays.equals(word[idx[j]], word[idx[i]])) {
        j++;
      }
      int[] list = new int[j - i];
      for (int k = i; k < j; k++) {
        list[k - i] = val[idx[k]];
      }
      if (sortedLists) {
        Arrays.sort(list);
      }
      parts.get(hash[idx[i]] % r).add(new Object[] {word[idx[i]], list});
      i = j;
    }
    return parts;
  }

  /** Merger's queue over two segments: {@code a} (the shorter, put first) wins equal keys
   *  while on top; the top changes only when the other's key is strictly smaller. */
  private static List<Object[]> merge(List<Object[]> a, List<Object[]> b) {
    List<Object[]> out = new ArrayList<>();
    int i = 0;
    int j = 0;
    boolean aTop = a.isEmpty() || b.isEmpty() || cmp(b.get(0), a.get(0)) >= 0;
    while (i < a.size() || j < b.size()) {
      if (i >= a.size()) {
        out.add(b.get(j++));
      } else if (j >= b.size()) {
        out.add(a.get(i++));
      } else if (aTop) {
        out.add(a.get(i++));
        aTop = i < a.size() && cmp(b.get(j), a.get(i)) >= 0;
      } else {
        out.add(b.get(j++));
        aTop = j >= b.size() || cmp(a.get(i), b.get(j)) < 0;
      }
    }
    return out;
  }

  private static int cmp(Object[] x, Object[] y) {
    byte[] a = (byte[]) x[0];
    byte[] b = (byte[]) y[0];
    return WritableComparator.compareBytes(a, 0, a.length, b, 0, b.length);
  }

  /** One partition through IFile.Writer: its materialized bytes (checksum included). */
  private static long write(List<Object[]> recs, CompressionCodec codec) throws IOException {
    DataOutputBuffer sink = new DataOutputBuffer(1 << 16);
    IFile.Writer<Object, Object> wr =
        new IFile.Writer<>(JOB, new FSDataOutputStream(sink, null), null, null, codec, null);
    DataOutputBuffer kb = new DataOutputBuffer();
    DataOutputBuffer vb = new DataOutputBuffer();
    DataInputBuffer k = new DataInputBuffer();
    DataInputBuffer v = new DataInputBuffer();
    for (Object[] rec : recs) {
      kb.reset();
      vb.reset();
      new Text((byte[]) rec[0]).write(kb);
      int[] list = (int[]) rec[1];
      WritableUtils.writeVInt(vb, list.length);
      for (int x : list) {
        vb.writeInt(x);
      }
      k.reset(kb.getData(), kb.getLength());
      v.reset(vb.getData(), vb.getLength());
      wr.append(k, v);
    }
    wr.close();
    return wr.getCompressedLength();
  }
}
