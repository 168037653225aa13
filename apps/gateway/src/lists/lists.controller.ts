import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppError } from '@mailguard/errors';
import type { ListView } from '@mailguard/lists';
import { Area, Scopes, setCreditsRemaining, type AuthedRequest } from '../auth/access';
import { ApiErrors, ApiQueryParams } from '../docs/api-docs';
import { sendCsv } from '../http/csv-download';
import { parsePage } from '../http/paging';
import { PageQuery } from '../http/paging.dto';
import {
  LIST_RESULTS_RESPONSE,
  ListDto,
  ListPageDto,
  ListResultsPageDto,
  ListResultsQuery,
  ListUploadDto,
} from './lists.dto';
import { ListsService } from './lists.service';
import { UploadStaging } from './upload';

@ApiTags('validation')
@Area('lists')
@Controller('lists')
export class ListsController {
  constructor(
    private readonly service: ListsService,
    private readonly staging: UploadStaging,
  ) {}

  /** #4: the upload is streamed to a temporary file, then read as the service says. */
  @Post()
  @Scopes('full', 'lists')
  @HttpCode(202)
  @ApiOperation({ summary: 'Upload a CSV list; its credits are held until it completes' })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: ListUploadDto })
  @ApiAcceptedResponse({ type: ListDto, description: 'The list, queued' })
  @ApiErrors(400, 402, 408, 413, 429, 503)
  async upload(@Req() req: AuthedRequest, @Res({ passthrough: true }) res: FastifyReply): Promise<ListView> {
    const upload = await this.staging.receive(req.raw, res.raw, req.auth.account.id);
    try {
      const { list, balance } = await this.service.create(req.auth.account.id, upload);
      setCreditsRemaining(res, balance);
      return list;
    } finally {
      await upload.cleanup();
    }
  }

  @Get()
  @Scopes('full', 'lists', 'read-only')
  @ApiOperation({ summary: 'Lists of the account' })
  @ApiQueryParams(PageQuery)
  @ApiOkResponse({ type: ListPageDto })
  @ApiErrors(400)
  async list(@Req() req: AuthedRequest, @Query('page') pageParam?: string, @Query('limit') limitParam?: string) {
    const { page, limit } = parsePage(pageParam, limitParam);
    return this.service.page(req.auth.account.id, page, limit);
  }

  @Get(':id')
  @Scopes('full', 'lists', 'read-only')
  @ApiOperation({ summary: 'One list and its progress' })
  @ApiParam({ name: 'id', description: 'List id (lst_…)' })
  @ApiOkResponse({ type: ListDto })
  @ApiErrors(404)
  async get(@Param('id') id: string, @Req() req: AuthedRequest): Promise<ListView> {
    return (await this.service.owned(req.auth.account.id, id)).view;
  }

  /**
   * #7: a JSON page, or the whole list as CSV (streamed): the customer's columns, then ours; 410
   * once retention has erased the rows.
   */
  @Get(':id/results')
  @Scopes('full', 'lists', 'read-only')
  @ApiOperation({ summary: 'Results of a list as JSON pages or CSV' })
  @ApiParam({ name: 'id', description: 'List id (lst_…)' })
  @ApiQueryParams(ListResultsQuery)
  @ApiExtraModels(ListResultsPageDto)
  @ApiOkResponse(LIST_RESULTS_RESPONSE)
  @ApiErrors(400, 404, 410)
  async results(
    @Param('id') id: string,
    @Req() req: AuthedRequest,
    @Res() res: FastifyReply,
    @Query('format') format = 'json',
    @Query('status') status?: string,
    @Query('page') pageParam?: string,
    @Query('limit') limitParam?: string,
  ): Promise<void> {
    const list = await this.service.withRows(req.auth.account.id, id);
    if (format !== 'json' && format !== 'csv') throw new AppError('bad_request', 'format must be json or csv');
    const filter = this.service.statusFilter(status);
    if (format === 'json') {
      const { page, limit } = parsePage(pageParam, limitParam);
      await res.send(await this.service.resultsPage(id, filter, page, limit));
      return;
    }
    await sendCsv(res, `${id}.csv`, (out) => this.service.writeCsv(list, filter, out));
  }

  /** #8: cancels a running list (what it holds beyond its charges comes back), or deletes a finished one. */
  @Delete(':id')
  @Scopes('full', 'lists')
  @ApiOperation({ summary: 'Cancel a running list (200) or delete a finished one and its data (204)' })
  @ApiParam({ name: 'id', description: 'List id (lst_…)' })
  @ApiOkResponse({ type: ListDto, description: 'The list, cancelled; what it held beyond its charges is released' })
  @ApiNoContentResponse({ description: 'The finished list is deleted: later reads of it are 404' })
  @ApiErrors(404)
  async remove(
    @Param('id') id: string,
    @Req() req: AuthedRequest,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<ListView | undefined> {
    const cancelled = await this.service.remove(req.auth.account.id, id);
    if (cancelled) {
      setCreditsRemaining(res, cancelled.balance);
      return cancelled.cancelled;
    }
    res.code(204);
    return undefined;
  }
}
