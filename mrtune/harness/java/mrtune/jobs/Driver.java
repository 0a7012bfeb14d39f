package mrtune.jobs;

import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;

/** Entry point: {@code Driver wordcount|sort|selectivity|postings [-D k=v ...] INPUT OUTPUT}. */
public final class Driver {
  private Driver() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: Driver wordcount|sort|selectivity|postings [-D k=v ...] INPUT OUTPUT");
      System.exit(2);
    }
    Tool tool;
    switch (args[0]) {
      case "wordcount":
        tool = new WordCount();
        break;
      case "sort":
        tool = new SortJob();
        break;
      case "selectivity":
        tool = new SelectivityJob();
        break;
      case "postings":
        tool = new Postings();
        break;
      default:
        System.err.println("unknown job " + args[0]);
        System.exit(2);
        return;
    }
    int rc = ToolRunner.run(new Configuration(), tool, Arrays.copyOfRange(args, 1, args.length));
    System.exit(rc);
  }
}
